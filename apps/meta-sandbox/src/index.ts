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
export { startSandbox, type RunningSandbox, type GraphReply } from './test-kit';
