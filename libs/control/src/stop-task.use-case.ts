import { Injectable } from '@nestjs/common';
import { ControlSignals, TaskRecord, TaskRepository } from '@vigil/tasks';
import { applyControl, CONTROL_FROM } from './control-refusal';

/** A stop always wins: the status becomes `cancelled` atomically, then running Workers abort. */
@Injectable()
export class StopTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly signals: ControlSignals,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord> {
    const task = await this.tasks.getForTenant(taskId, tenantId);
    await applyControl('stop', taskId, () =>
      this.tasks.transition(task, 'cancelled', { from: [...CONTROL_FROM.stop], eventData: { by: 'user' } }),
    );
    await this.signals.publish({ taskId, action: 'stop' });
    return this.tasks.getForTenant(taskId, tenantId);
  }
}
