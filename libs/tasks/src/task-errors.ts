import type { TaskStatus } from './task-status';
import { isOutOfMemory } from '@vigil/redis';

/**
 * What a domain error means to whoever asked, whatever the transport: the API maps each kind to one
 * HTTP status in one table (docs/api.md, "Requests and errors").
 * - `not_found`: the thing named does not exist (for this tenant);
 * - `conflict`: the request is valid but the current state refuses it;
 * - `invalid`: the request itself is malformed or names something that cannot be;
 * - `unprocessable`: well formed, but this deployment or this key's history cannot accept it;
 * - `limit`: a bound was reached; the same request may succeed later;
 * - `unavailable`: a store Vigil depends on cannot take the request now (Redis full); try again later;
 * - `upstream`: a store Vigil depends on answered with something unusable (an unreadable archive).
 */
export const DOMAIN_ERROR_KINDS = [
  'not_found',
  'conflict',
  'invalid',
  'unprocessable',
  'limit',
  'unavailable',
  'upstream',
] as const;
export type DomainErrorKind = (typeof DOMAIN_ERROR_KINDS)[number];

/** An error a caller can act on: it declares its kind, and may add fields to the error body. */
export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  /** For a `limit` or `unavailable`: seconds after which trying again may succeed (a hint, not a promise). */
  readonly retryAfterS?: number;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }

  /** The problems the message lists; the API joins and bounds them. */
  problemList(): readonly string[] {
    return [this.message];
  }

  /** Fields beside `statusCode`, `error` and `message` in the error body. */
  details(): Record<string, unknown> {
    return {};
  }
}

export class TaskNotFoundError extends DomainError {
  readonly kind = 'not_found';

  constructor(readonly taskId: string) {
    super(`task ${taskId} not found`);
  }
}

export class IllegalTransitionError extends DomainError {
  readonly kind = 'conflict';

  constructor(
    readonly taskId: string,
    readonly currentStatus: TaskStatus,
    readonly targetStatus: TaskStatus,
  ) {
    super(`task ${taskId} is ${currentStatus} and cannot become ${targetStatus}`);
  }

  override details(): Record<string, unknown> {
    return { currentStatus: this.currentStatus };
  }
}

/** A write from an attempt the task has moved past: the writer is a zombie and must stop. */
export class StaleAttemptError extends DomainError {
  readonly kind = 'conflict';

  constructor(
    readonly taskId: string,
    readonly writerAttempt: number,
    readonly currentAttempt: number,
  ) {
    super(`task ${taskId}: attempt ${writerAttempt} is fenced off by attempt ${currentAttempt}`);
  }
}

/** The task is no longer in a state this writer may touch (stopped, paused, recovered). */
export class TaskNotActiveError extends DomainError {
  readonly kind = 'conflict';

  constructor(
    readonly taskId: string,
    readonly currentStatus: TaskStatus,
  ) {
    super(`task ${taskId} is ${currentStatus}`);
  }
}

export class IdempotencyConflictError extends DomainError {
  readonly kind = 'unprocessable';

  constructor(readonly key: string) {
    super(`Idempotency-Key ${key} was already used with a different request body`);
  }
}

/** An Idempotency-Key header the API cannot store as given. */
export class InvalidIdempotencyKeyError extends DomainError {
  readonly kind = 'invalid';

  constructor() {
    super('Idempotency-Key must be 1-255 visible ASCII characters');
  }
}

export class InvalidTaskInputError extends DomainError {
  readonly kind = 'invalid';

  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }

  override problemList(): readonly string[] {
    return this.problems;
  }
}

export class InvalidCursorError extends DomainError {
  readonly kind = 'invalid';

  constructor() {
    super('cursor is not one this API returned');
  }
}

/** Seconds a client is told to wait before trying a write again while the store is full. */
export const STORE_FULL_RETRY_AFTER_S = 30;

/**
 * Redis is full (`maxmemory` reached under `noeviction`) and refuses writes; reads still work
 * (docs/operations.md, "A full Redis"). A request is answered 503 `store_full` with Retry-After; a
 * Worker ends its slice without a failure; the Watcher waits. Made only by `storeFullOf`.
 */
export class StoreFullError extends DomainError {
  readonly kind = 'unavailable';
  override readonly retryAfterS = STORE_FULL_RETRY_AFTER_S;

  constructor(readonly refusal: Error) {
    super(
      "Vigil's store (Redis) is full and takes no writes until an operator frees space; reads still work. " +
        `Try again in ${STORE_FULL_RETRY_AFTER_S} s.`,
    );
  }

  override details(): Record<string, unknown> {
    return { code: 'store_full' };
  }
}

/**
 * The one translation of Redis's refusal of a full store into the domain's StoreFullError, used
 * where writes leave for Redis (the task scripts, the slice and wake queues, the rate-limit
 * counters): the error as a StoreFullError when it is that refusal, otherwise unchanged.
 */
export function storeFullOf(error: unknown): unknown {
  return error instanceof Error && !(error instanceof StoreFullError) && isOutOfMemory(error)
    ? new StoreFullError(error)
    : error;
}
