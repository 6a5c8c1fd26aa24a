import { Inject, Injectable } from '@nestjs/common';
import { ADMIN_CONFIG, AdminConfig, CLOCKS_CONFIG, ClockConfig } from '@vigil/config';
import { TASK_STATUSES, TaskRecord, TaskRepository, TaskStatus } from '@vigil/tasks';
import { TaskRow, toTaskRow } from './task-row';

/** Rows the list shows at most: the newest; a filter narrows to the others. */
export const BOARD_LIMIT = 100;

export interface BoardFilter {
  status?: TaskStatus;
  tenantId?: string;
}

export interface Board {
  rows: TaskRow[];
  /** More tasks match the filter than the list shows. */
  truncated: boolean;
  tenants: string[];
  /** Tasks per status for the filter (or every) tenant, from the status indexes. */
  counts: Record<TaskStatus, number>;
}

/**
 * The task list across tenants, read only through the tenant indexes `GET /v1/tasks` pages with
 * (newest first) and their status indexes (counts): never a scan of every key. Tenants are the
 * ones API_KEYS names: only they can own tasks.
 */
@Injectable()
export class TaskBoard {
  readonly tenants: string[];

  constructor(
    private readonly tasks: TaskRepository,
    @Inject(ADMIN_CONFIG) admin: AdminConfig,
    @Inject(CLOCKS_CONFIG) private readonly clocks: ClockConfig,
  ) {
    this.tenants = [...new Set(admin.apiKeys.map((key) => key.tenantId))];
  }

  /** The tenants a filter selects: one (when it names a known tenant), none, or all. */
  selected(filter: BoardFilter): string[] {
    if (filter.tenantId === undefined) return this.tenants;
    return this.tenants.includes(filter.tenantId) ? [filter.tenantId] : [];
  }

  async read(filter: BoardFilter, now = Date.now()): Promise<Board> {
    const tenants = this.selected(filter);
    const [pages, counts] = await Promise.all([
      Promise.all(
        tenants.map((tenantId) => this.tasks.list(tenantId, { status: filter.status, limit: BOARD_LIMIT })),
      ),
      Promise.all(tenants.map((tenantId) => this.tasks.countByStatus(tenantId))),
    ]);
    const merged: TaskRecord[] = pages
      .flatMap((page) => page.data)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    const total = Object.fromEntries(TASK_STATUSES.map((status) => [status, 0])) as Record<
      TaskStatus,
      number
    >;
    for (const byStatus of counts) for (const status of TASK_STATUSES) total[status] += byStatus[status];
    return {
      rows: merged.slice(0, BOARD_LIMIT).map((task) => toTaskRow(task, now, this.clocks.staleAfterMs)),
      truncated: merged.length > BOARD_LIMIT || pages.some((page) => page.nextCursor !== undefined),
      tenants: this.tenants,
      counts: total,
    };
  }

  /** Whether a task belongs on the list the filter shows (for live updates). */
  matches(task: TaskRecord, filter: BoardFilter): boolean {
    return (
      this.selected(filter).includes(task.tenantId) &&
      (filter.status === undefined || task.status === filter.status)
    );
  }
}
