import { Inject, Injectable, Logger } from '@nestjs/common';
import { KindRegistry, runsVersion } from '@vigil/kinds';
import { IllegalTransitionError, StaleAttemptError, TaskLifecycle, type TaskRecord } from '@vigil/tasks';
import { WorkerKinds } from './worker-kinds';

/**
 * What a Worker does with a slice job of a task recorded at a kind version (docs/kinds.md,
 * "Versions"): `runs` it when one of its kinds runs that version; hands the job back for
 * `elsewhere` when another live Worker does; otherwise the task waits, `parked` with its reason.
 */
export type VersionVerdict = 'runs' | 'elsewhere' | 'parked';

/** The pick-up check, before the slice is claimed: nothing of the task is touched unless it parks. */
@Injectable()
export class KindVersionGate {
  private readonly logger = new Logger(KindVersionGate.name);

  constructor(
    private readonly registry: KindRegistry,
    private readonly workers: WorkerKinds,
    private readonly lifecycle: TaskLifecycle,
    @Inject('WORKER_ID') private readonly workerId: string,
  ) {}

  /** Whether this process has a kind that runs the task's recorded version. */
  runs(task: Pick<TaskRecord, 'kind' | 'kindVersion'>): boolean {
    const kind = this.registry.all().find((known) => known.name === task.kind);
    return kind !== undefined && runsVersion(kind, task.kindVersion);
  }

  async check(task: TaskRecord, attempt: number): Promise<VersionVerdict> {
    if (this.runs(task)) return 'runs';
    if (await this.workers.anyRuns(task.kind, task.kindVersion, this.workerId)) return 'elsewhere';
    try {
      await this.lifecycle.awaitKindVersion(task, { attempt, kind: task.kind, version: task.kindVersion });
      this.logger.warn(
        `task ${task.id}: no running Worker runs ${task.kind} version ${task.kindVersion}; it waits (kind_version_unavailable)`,
      );
    } catch (error) {
      // Stopped, paused or taken meanwhile: not this job's to park.
      if (!(error instanceof IllegalTransitionError) && !(error instanceof StaleAttemptError)) throw error;
    }
    return 'parked';
  }
}
