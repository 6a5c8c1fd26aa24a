export { MetaGraphClient, adAccountId, imageHash } from './client';
export {
  MetaApiError,
  MetaGraphError,
  MetaPagingError,
  MetaRequestAbortedError,
  MetaTransportError,
  MetaWriteOutcomeUnknownError,
  type TransportFailure,
  type WriteOutcomeReason,
} from './errors';
export { FAIL_FAST_CODES, RATE_LIMIT_CODES, TRANSIENT_CODES } from './retry-policy';
export type { SleepFn } from './sleep';
export type * from './types';
export * from './enums';
