import { Injectable } from '@nestjs/common';
import {
  ChildTaskRepository,
  ControlSignals,
  IllegalTransitionError,
  TaskRecord,
  TaskRepository,
  TERMINAL_STATUSES,
} from '@vigil/tasks';
import { applyControl, CONTROL_FROM } from './control-refusal';

/**
 * A stop always wins: the status becomes `cancelled` atomically, then running Workers abort. It
 * cascades to the task's children, running and queued (docs/missions.md, "Child missions"):
 * the parent is cancelled first, so no child's end releases another.
 */
@Injectable()
export class StopTaskUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly signals: ControlSignals,
    private readonly children: ChildTaskRepository,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord> {
    const task = await this.tasks.getForTenant(taskId, tenantId);
    await applyControl('stop', taskId, () =>
      this.tasks.transition(task, 'cancelled', { from: [...CONTROL_FROM.stop], eventData: { by: 'user' } }),
    );
    await this.signals.publish({ taskId, action: 'stop' });
    await this.stopChildren(task);
    return this.tasks.getForTenant(taskId, tenantId);
  }

  /** Cancels every child not ended yet, and their children in turn; a child that ended meanwhile is left. */
  private async stopChildren(parent: TaskRecord): Promise<void> {
    for (const child of await this.children.list(parent.id)) {
      if (TERMINAL_STATUSES.includes(child.status)) continue;
      try {
        await this.tasks.transition(child, 'cancelled', {
          from: [...CONTROL_FROM.stop],
          eventData: { by: 'parent', parentId: parent.id },
        });
      } catch (error) {
        if (!(error instanceof IllegalTransitionError)) throw error;
      }
      await this.signals.publish({ taskId: child.id, action: 'stop' });
      await this.stopChildren(child);
    }
  }
}
