import { Injectable } from '@nestjs/common';
import type { TaskContext } from '../history/history.types';
import { TaskContextStore } from '../history/task-context.store';
import type { TaskRecord } from '../task.types';
import { buildTaskReport } from './build-report';

/** The report of a task from its decoded context: the same for a live task and one being archived. */
export function reportOfContext(task: TaskRecord, context: TaskContext): string {
  return buildTaskReport({
    task,
    findings: context.findings,
    actions: context.actions,
    journal: context.journal,
  });
}

/** Gathers a report's inputs (findings, action log, write journal: one round trip) and builds it. */
@Injectable()
export class TaskReportReader {
  constructor(private readonly contexts: TaskContextStore) {}

  async reportOf(task: TaskRecord): Promise<string> {
    return reportOfContext(task, await this.contexts.load(task.id));
  }
}
