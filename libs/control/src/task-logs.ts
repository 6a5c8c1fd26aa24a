import { Injectable } from '@nestjs/common';
import { LogPage, TaskContextStore, TaskRepository } from '@vigil/tasks';

export type { LogPage } from '@vigil/tasks';

/** Reads of a task's append-only lists (actions, findings, user messages) for its tenant, oldest first. */
@Injectable()
export class TaskLogs {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly contexts: TaskContextStore,
  ) {}

  async actions(tenantId: string, taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    await this.tasks.getForTenant(taskId, tenantId);
    return this.contexts.actionsPage(taskId, limit, cursor);
  }

  async findings(tenantId: string, taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    await this.tasks.getForTenant(taskId, tenantId);
    return this.contexts.findingsPage(taskId, limit, cursor);
  }

  async messages(tenantId: string, taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    await this.tasks.getForTenant(taskId, tenantId);
    return this.contexts.messagesPage(taskId, limit, cursor);
  }
}
