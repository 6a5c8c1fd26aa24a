import { Injectable } from '@nestjs/common';
import { TaskLifecycle, TaskRecord, TaskRepository } from '@vigil/tasks';
import { applyControl } from './control-refusal';

@Injectable()
export class PauseTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly lifecycle: TaskLifecycle,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord> {
    const task = await this.tasks.getForTenant(taskId, tenantId);
    await applyControl('pause', taskId, () => this.lifecycle.pause(task));
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
