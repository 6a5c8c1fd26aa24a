import { Injectable } from '@nestjs/common';
import { TaskLifecycle, TaskRecord, TaskRepository } from '@vigil/tasks';
import { applyControl } from './control-refusal';

/**
 * A stop always wins: the status becomes `cancelled` atomically, then running Workers abort. It
 * cascades to the task's children, running and queued (docs/missions.md, "Child missions").
 */
@Injectable()
export class StopTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly lifecycle: TaskLifecycle,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord> {
    const task = await this.tasks.getForTenant(taskId, tenantId);
    await applyControl('stop', taskId, () => this.lifecycle.stop(task));
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
