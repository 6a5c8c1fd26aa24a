import { Injectable } from '@nestjs/common';
import { TurnQueue } from '@vigil/queue';
import { InvalidTaskInputError, TaskRecord, TaskRepository } from '@vigil/tasks';
import type { ResumeTaskDto } from './resume-task.dto';
import { applyControl, CONTROL_FROM } from './control-refusal';

/**
 * Resuming starts a new attempt: a slice paused mid-call that wakes up later is then a zombie
 * whose writes are fenced off, instead of a second writer beside the resumed one. A task paused
 * by its budget resumes with a higher `budgetUsd` and continues from its last recorded step.
 */
@Injectable()
export class ResumeTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly turns: TurnQueue,
  ) {}

  async execute(tenantId: string, taskId: string, body: ResumeTaskDto = {}): Promise<TaskRecord> {
    const task = await this.tasks.getForTenant(taskId, tenantId);
    if (body.budgetUsd !== undefined && body.budgetUsd <= task.spentUsd) {
      throw new InvalidTaskInputError([
        `budgetUsd must be above the $${task.spentUsd.toFixed(4)} the task has already spent, got ${body.budgetUsd}`,
      ]);
    }
    const { attempt } = await applyControl('resume', taskId, () =>
      this.tasks.transition(task, 'queued', {
        from: [...CONTROL_FROM.resume],
        increments: { attempt: 1 },
        fields: {
          consecutiveErrors: 0,
          ...(body.budgetUsd !== undefined ? { budgetUsd: body.budgetUsd } : {}),
        },
        eventType: 'task.resumed',
        eventData: { by: 'user' },
      }),
    );
    await this.turns.publish({ taskId, attempt, slice: task.sliceCount + 1, reason: 'resumed' });
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
