import { Injectable } from '@nestjs/common';
import { TaskContextStore } from '../history/task-context.store';
import type { TaskRecord } from '../task.types';
import { buildTaskReport } from './build-report';

/** Gathers a report's inputs (findings, action log, write journal: one round trip) and builds it. */
@Injectable()
export class TaskReportReader {
  constructor(private readonly contexts: TaskContextStore) {}

  async reportOf(task: TaskRecord): Promise<string> {
    const context = await this.contexts.load(task.id);
    return buildTaskReport({
      task,
      findings: context.findings,
      actions: context.actions,
      journal: context.journal,
    });
  }
}
