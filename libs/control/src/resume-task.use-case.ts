import { Injectable } from '@nestjs/common';
import { TurnQueue } from '@vigil/queue';
import { TaskRecord, TaskRepository } from '@vigil/tasks';

/**
 * Resuming starts a new attempt: a slice paused mid-call that wakes up later is then a zombie
 * whose writes are fenced off, instead of a second writer beside the resumed one.
 */
@Injectable()
export class ResumeTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly turns: TurnQueue,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord> {
    const task = await this.tasks.getForTenant(taskId, tenantId);
    const { attempt } = await this.tasks.transition(task, 'queued', {
      from: ['paused'],
      increments: { attempt: 1 },
      fields: { consecutiveErrors: 0 },
      eventType: 'task.resumed',
      eventData: { by: 'user' },
    });
    await this.turns.publish({ taskId, attempt, slice: task.sliceCount + 1, reason: 'resumed' });
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
