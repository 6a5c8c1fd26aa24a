import { DomainError } from '@vigil/tasks';

/** A tenant at MAX_ACTIVE_TASKS_PER_TENANT asked for one more task (the API answers 429). */
export class ActiveTaskLimitError extends DomainError {
  readonly kind = 'limit';
  // A hint, not a promise: room opens when one of the tenant's tasks ends.
  override readonly retryAfterS = 30;

  constructor(
    readonly active: number,
    readonly limit: number,
  ) {
    super(
      `this API key's tenant has ${active} active tasks and may have at most ${limit} at once ` +
        '(MAX_ACTIVE_TASKS_PER_TENANT); wait for one to finish, or stop one, and try again',
    );
  }

  override details(): Record<string, unknown> {
    return { activeTasks: this.active };
  }
}
