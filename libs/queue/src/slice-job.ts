import type { JobsOptions } from 'bullmq';

import type { SliceJob } from '@vigil/tasks';
import { removalOptions, SLICE_JOB_RETENTION } from './job-retention';

/** One slice job = one slice of one task at one attempt, as the task lifecycle publishes it. */
export type { SliceJob };

/** BullMQ's job name of a slice: 'turn' since the first release, kept so queued jobs stay readable. */
export const SLICE_JOB_NAME = 'turn';

/**
 * The Watcher owns recovery (docs/ARCHITECTURE.md, invariant 3): a slice job runs once, never re-queued by
 * BullMQ's retries or its stalled-job check (the worker also sets maxStalledCount: 0). Finished, it
 * is removed by age and count (SLICE_JOB_RETENTION).
 */
export const SLICE_JOB_OPTIONS: JobsOptions = { attempts: 1, ...removalOptions(SLICE_JOB_RETENTION) };

/** Deterministic id: publishing the same slice of the same attempt twice yields one job. */
export function sliceJobId(job: Pick<SliceJob, 'taskId' | 'attempt' | 'slice'>): string {
  return `${job.taskId}-a${job.attempt}-s${job.slice}`;
}
