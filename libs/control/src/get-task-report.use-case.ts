import { Injectable } from '@nestjs/common';
import { ReadableTasks, TaskReportReader } from '@vigil/tasks';

/**
 * `GET /v1/tasks/:id/report`: the runtime's Markdown report of a task of this tenant; once the task
 * is archived, the report its archive kept (built by the same code when it was archived).
 */
@Injectable()
export class GetTaskReportUseCase {
  constructor(
    private readonly reads: ReadableTasks,
    private readonly reports: TaskReportReader,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<string> {
    // Another tenant's task is a 404, as for every read.
    const { task, archive } = await this.reads.find(tenantId, taskId);
    return archive ? archive.report : this.reports.reportOf(task);
  }
}
