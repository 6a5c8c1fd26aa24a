import { Inject, Injectable, Optional } from '@nestjs/common';
import { SERVER_CONFIG, type ServerConfig } from '@vigil/config';
import type { TaskContext } from '../history/history.types';
import { TaskContextStore } from '../history/task-context.store';
import type { TaskRecord } from '../task.types';
import { buildTaskReport } from './build-report';

/** The report of a task from its decoded context: the same for a live task and one being archived. */
export function reportOfContext(task: TaskRecord, context: TaskContext, publicBaseUrl?: string): string {
  return buildTaskReport({
    task,
    findings: context.findings,
    actions: context.actions,
    journal: context.journal,
    ...(context.steering?.length ? { steering: context.steering } : {}),
    ...(publicBaseUrl ? { publicBaseUrl } : {}),
  });
}

/** Gathers a report's inputs (findings, action log, write journal: one round trip) and builds it. */
@Injectable()
export class TaskReportReader {
  constructor(
    private readonly contexts: TaskContextStore,
    /** PUBLIC_BASE_URL: the report links its findings' artifacts from it. */
    @Optional() @Inject(SERVER_CONFIG) private readonly server?: Pick<ServerConfig, 'publicBaseUrl'>,
  ) {}

  async reportOf(task: TaskRecord): Promise<string> {
    return reportOfContext(task, await this.contexts.load(task.id), this.server?.publicBaseUrl);
  }
}
