import { Injectable } from '@nestjs/common';
import { ControlSignals, TaskRecord, TaskRepository } from '@vigil/tasks';
import { applyControl, CONTROL_FROM } from './control-refusal';

@Injectable()
export class PauseTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly signals: ControlSignals,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord> {
    const task = await this.tasks.getForTenant(taskId, tenantId);
    await applyControl('pause', taskId, () =>
      this.tasks.transition(task, 'paused', {
        from: [...CONTROL_FROM.pause],
        fields: { statusReason: 'user' },
        eventData: { by: 'user' },
      }),
    );
    await this.signals.publish({ taskId, action: 'pause' });
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
