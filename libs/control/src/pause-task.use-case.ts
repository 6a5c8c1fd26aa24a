import { Injectable } from '@nestjs/common';
import { TaskLifecycle, TaskRecord, ReadableTasks, TaskRepository } from '@vigil/tasks';
import { applyControl, taskToControl } from './control-refusal';

@Injectable()
export class PauseTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly reads: ReadableTasks,
    private readonly lifecycle: TaskLifecycle,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord> {
    const task = await taskToControl(this.reads, 'pause', tenantId, taskId);
    await applyControl('pause', taskId, () => this.lifecycle.pause(task));
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
