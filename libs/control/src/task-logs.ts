import { Injectable } from '@nestjs/common';
import { LogPage, pageOfLog, rangeOfEntries, ReadableTasks, TaskContextStore } from '@vigil/tasks';

export type { LogPage } from '@vigil/tasks';

type Log = 'actions' | 'findings' | 'messages';

/**
 * Reads of a task's append-only lists (actions, findings, user messages) for its tenant, oldest
 * first: from Redis while the task is live, from its archive's stored entries once archived, paged
 * by the one `pageOfLog`, so both answer the same pages (docs/api.md, "Archived tasks").
 */
@Injectable()
export class TaskLogs {
  constructor(
    private readonly reads: ReadableTasks,
    private readonly contexts: TaskContextStore,
  ) {}

  actions(tenantId: string, taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    return this.page('actions', tenantId, taskId, limit, cursor);
  }

  findings(tenantId: string, taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    return this.page('findings', tenantId, taskId, limit, cursor);
  }

  messages(tenantId: string, taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    return this.page('messages', tenantId, taskId, limit, cursor);
  }

  private async page(log: Log, tenantId: string, taskId: string, limit: number, cursor?: string) {
    const { task, archive } = await this.reads.find(tenantId, taskId);
    if (archive) return pageOfLog(rangeOfEntries(archive[log]), limit, cursor);
    switch (log) {
      case 'actions':
        return this.contexts.actionsPage(task.id, limit, cursor);
      case 'findings':
        return this.contexts.findingsPage(task.id, limit, cursor);
      case 'messages':
        return this.contexts.messagesPage(task.id, limit, cursor);
    }
  }
}
