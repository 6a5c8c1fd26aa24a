import { Injectable } from '@nestjs/common';
import { TaskNotFoundError } from '../task-errors';
import { TaskRepository } from '../task.repository';
import type { TaskRecord } from '../task.types';
import { ArchivedTasks, archivedTaskRecord } from './archived-tasks';
import type { TaskArchivePayload } from './task-archive.types';

/** A task as a read finds it: live in Redis, or read back from its archive (then `archive` is set). */
export interface ReadableTask {
  task: TaskRecord;
  archive?: TaskArchivePayload;
}

/**
 * Where every read of one task starts (docs/api.md, "Archived tasks"): Redis first, and only when
 * Redis has no record of it for this tenant, the tenant's archive. The writer removes a task's keys
 * only after its archive is written and read back, so a task is always in one place or the other.
 */
@Injectable()
export class ReadableTasks {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly archives: ArchivedTasks,
  ) {}

  /** The tenant's task, live or archived; TaskNotFoundError when it is in neither. */
  async find(tenantId: string, taskId: string): Promise<ReadableTask> {
    try {
      return { task: await this.tasks.getForTenant(taskId, tenantId) };
    } catch (error) {
      if (!(error instanceof TaskNotFoundError)) throw error;
      const archive = await this.archives.find(tenantId, taskId);
      if (!archive) throw error;
      return { task: archivedTaskRecord(archive), archive };
    }
  }
}
