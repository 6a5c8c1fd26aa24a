import { DomainError } from '../task-errors';
import type { TaskStatus } from '../task-status';
import { MAX_STEER_INSTRUCTIONS } from './steering.types';

/** An instruction for a task that has finished: a 409 with its status (docs/api.md, "Steering"). */
export class SteerNotAllowedError extends DomainError {
  readonly kind = 'conflict';

  constructor(
    readonly taskId: string,
    readonly currentStatus: TaskStatus,
  ) {
    super(
      `the task is ${currentStatus.replace(/_/g, ' ')}; only a task that has not finished can be steered`,
    );
  }

  override details(): Record<string, unknown> {
    return { currentStatus: this.currentStatus };
  }
}

/** The task holds MAX_STEER_INSTRUCTIONS already: a 409 (stop it and start one with a new goal). */
export class SteeringFullError extends DomainError {
  readonly kind = 'conflict';

  constructor(
    readonly taskId: string,
    readonly currentStatus: TaskStatus,
  ) {
    super(
      `the task was given ${MAX_STEER_INSTRUCTIONS} instructions already, the most one task takes; ` +
        'stop it and start a task with the goal as it now stands',
    );
  }

  override details(): Record<string, unknown> {
    return { currentStatus: this.currentStatus };
  }
}
