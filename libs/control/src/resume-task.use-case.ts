import { Injectable } from '@nestjs/common';
import {
  InvalidTaskInputError,
  TaskLifecycle,
  TaskRecord,
  ReadableTasks,
  TaskRepository,
} from '@vigil/tasks';
import type { ResumeTaskDto } from './resume-task.dto';
import { applyControl, taskToControl } from './control-refusal';

/**
 * Resuming starts a new attempt: a slice paused mid-call that wakes up later is then a zombie
 * whose writes are fenced off, instead of a second writer beside the resumed one. A task paused
 * by its budget resumes with a higher `budgetUsd` and continues from its last recorded step.
 */
@Injectable()
export class ResumeTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly reads: ReadableTasks,
    private readonly lifecycle: TaskLifecycle,
  ) {}

  async execute(tenantId: string, taskId: string, body: ResumeTaskDto = {}): Promise<TaskRecord> {
    const task = await taskToControl(this.reads, 'resume', tenantId, taskId);
    if (body.budgetUsd !== undefined && body.budgetUsd <= task.spentUsd) {
      throw new InvalidTaskInputError([
        `budgetUsd must be above the $${task.spentUsd.toFixed(4)} the task has already spent, got ${body.budgetUsd}`,
      ]);
    }
    await applyControl('resume', taskId, () =>
      this.lifecycle.resume(task, body.budgetUsd !== undefined ? { budgetUsd: body.budgetUsd } : {}),
    );
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
