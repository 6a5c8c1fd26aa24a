import type { TaskStatus } from './task-status';

/** Domain errors; the API maps each to one HTTP status in its exception filter. */
export abstract class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class TaskNotFoundError extends DomainError {
  constructor(readonly taskId: string) {
    super(`task ${taskId} not found`);
  }
}

export class IllegalTransitionError extends DomainError {
  constructor(
    readonly taskId: string,
    readonly currentStatus: TaskStatus,
    readonly targetStatus: TaskStatus,
  ) {
    super(`task ${taskId} is ${currentStatus} and cannot become ${targetStatus}`);
  }
}

/** A write from an attempt the task has moved past: the writer is a zombie and must stop. */
export class StaleAttemptError extends DomainError {
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
  constructor(
    readonly taskId: string,
    readonly currentStatus: TaskStatus,
  ) {
    super(`task ${taskId} is ${currentStatus}`);
  }
}

export class IdempotencyConflictError extends DomainError {
  constructor(readonly key: string) {
    super(`Idempotency-Key ${key} was already used with a different request body`);
  }
}

/** An Idempotency-Key header the API cannot store as given. */
export class InvalidIdempotencyKeyError extends DomainError {
  constructor() {
    super('Idempotency-Key must be 1-255 visible ASCII characters');
  }
}

export class InvalidTaskInputError extends DomainError {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

export class InvalidCursorError extends DomainError {
  constructor() {
    super('cursor is not one this API returned');
  }
}
