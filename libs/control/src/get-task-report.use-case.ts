import { Injectable } from '@nestjs/common';
import { TaskReportReader, TaskRepository } from '@vigil/tasks';

/** `GET /v1/tasks/:id/report`: the runtime's Markdown report of a task of this tenant. */
@Injectable()
export class GetTaskReportUseCase {
  constructor(
    private readonly tasks: TaskRepository,
    private readonly reports: TaskReportReader,
  ) {}

  async execute(tenantId: string, taskId: string): Promise<string> {
    // Another tenant's task is a 404, as for every read.
    const task = await this.tasks.getForTenant(taskId, tenantId);
    return this.reports.reportOf(task);
  }
}
