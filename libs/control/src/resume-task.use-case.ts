import { Injectable } from '@nestjs/common';
import {
  InvalidTaskInputError,
  TaskLifecycle,
  TaskRecord,
  ReadableTasks,
  TaskRepository,
  TenantBudgetSpentError,
  TenantSpend,
} from '@vigil/tasks';
import type { ResumeTaskDto } from './resume-task.dto';
import { applyControl, taskToControl } from './control-refusal';

/**
 * Resuming starts a new attempt: a slice paused mid-call that wakes up later is then a zombie
 * whose writes are fenced off, instead of a second writer beside the resumed one. A task paused
 * by its budget resumes with a higher `budgetUsd` and continues from its last recorded step; one
 * paused by its tenant's daily budget resumes once that budget has room again (the next UTC day, or
 * a raised `tenants.<id>.dailyBudgetUsd`).
 */
@Injectable()
export class ResumeTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly reads: ReadableTasks,
    private readonly lifecycle: TaskLifecycle,
    private readonly tenantSpend: TenantSpend,
  ) {}

  async execute(tenantId: string, taskId: string, body: ResumeTaskDto = {}): Promise<TaskRecord> {
    const task = await taskToControl(this.reads, 'resume', tenantId, taskId);
    if (body.budgetUsd !== undefined && body.budgetUsd <= task.spentUsd) {
      throw new InvalidTaskInputError([
        `budgetUsd must be above the $${task.spentUsd.toFixed(4)} the task has already spent, got ${body.budgetUsd}`,
      ]);
    }
    if (task.status === 'paused' && task.statusReason === 'tenant_daily_budget') {
      // Nothing writes a paused task: its updatedAt is the moment it paused.
      const spend = await this.tenantSpend.refusesResume(task.tenantId, task.updatedAt);
      if (spend) throw new TenantBudgetSpentError(taskId, spend);
    }
    await applyControl('resume', taskId, () =>
      this.lifecycle.resume(task, body.budgetUsd !== undefined ? { budgetUsd: body.budgetUsd } : {}),
    );
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
