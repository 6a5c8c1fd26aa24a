import { Injectable } from '@nestjs/common';
import {
  ArchivedTasks,
  archivedTaskRecord,
  ChildTaskRepository,
  ReadableTasks,
  TaskRecord,
} from '@vigil/tasks';

/**
 * A task's children, oldest first, for its own tenant only (another tenant's task is a 404). Live
 * or archived, parent and children alike: an archived parent names its children in its archive,
 * and a child Redis no longer holds is read from its own archive.
 */
@Injectable()
export class ListChildrenUseCase {
  constructor(
    private readonly reads: ReadableTasks,
    private readonly children: ChildTaskRepository,
    private readonly archives: ArchivedTasks,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<TaskRecord[]> {
    const parent = await this.reads.find(tenantId, taskId);
    const ids = parent.archive ? parent.archive.children : await this.children.ids(parent.task.id);
    const live = await this.children.records(ids);
    const found = await Promise.all(
      live.map(async (child, i) => {
        if (child) return child;
        const archive = await this.archives.find(tenantId, ids[i]);
        return archive ? archivedTaskRecord(archive) : null;
      }),
    );
    return found.filter((child): child is TaskRecord => child !== null);
  }
}
