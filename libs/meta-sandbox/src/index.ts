export { MetaSandbox, type MetaSandboxOptions, type SandboxAddress } from './sandbox';
export type { FaultStats } from './faults';
export type { SandboxSnapshot } from './snapshot';
export type {
  AnyRecord,
  DuplicateGroup,
  FailNextRule,
  FaultConfig,
  FaultKind,
  ObjectKind,
  RateLimitConfig,
} from './types';
export {
  OBJECTIVES,
  SPECIAL_AD_CATEGORIES,
  BILLING_EVENTS,
  OPTIMIZATION_GOALS,
  BID_STRATEGIES,
} from './enums';
export { startSandbox, type RunningSandbox, type GraphReply } from './test-kit';
