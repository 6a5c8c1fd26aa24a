import { Injectable } from '@nestjs/common';
import { TaskLifecycle, TaskRecord, ReadableTasks, TaskRepository } from '@vigil/tasks';
import { applyControl, taskToControl } from './control-refusal';

/**
 * A stop always wins: the status becomes `cancelled` atomically, then running Workers abort. It
 * cascades to the task's children, running and queued (docs/missions.md, "Child missions").
 */
@Injectable()
export class StopTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly reads: ReadableTasks,
    private readonly lifecycle: TaskLifecycle,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord> {
    const task = await taskToControl(this.reads, 'stop', tenantId, taskId);
    await applyControl('stop', taskId, () => this.lifecycle.stop(task));
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
