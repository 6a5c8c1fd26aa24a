import type { JobsOptions } from 'bullmq';

/** One turn job = one slice of one task at one attempt. */
export interface TurnJob {
  taskId: string;
  attempt: number;
  /** The slice number this job runs (sliceCount + 1 at publish time). */
  slice: number;
  reason: 'created' | 'next_slice' | 'recovery' | 'resumed' | 'republished';
}

export const TURN_JOB_NAME = 'turn';

/**
 * The Watcher owns recovery (docs/ARCHITECTURE.md, invariant 3): a turn job runs once, never re-queued by
 * BullMQ's retries or its stalled-job check (the worker also sets maxStalledCount: 0).
 */
export const TURN_JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 24 * 3_600, count: 10_000 },
};

/** Deterministic id: publishing the same slice of the same attempt twice yields one job. */
export function turnJobId(job: Pick<TurnJob, 'taskId' | 'attempt' | 'slice'>): string {
  return `${job.taskId}-a${job.attempt}-s${job.slice}`;
}
