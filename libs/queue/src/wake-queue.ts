import { Inject, Injectable } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';
import { RedisKeys } from '@vigil/redis';
import { storeFullOf } from '@vigil/tasks';

export const WAKE_QUEUES = Symbol('WAKE_QUEUES');
export const WAKE_JOB_NAME = 'wake';

/**
 * A task needs a Watcher's decision now: its Worker claimed completion (`verifying`) or reported
 * its attempt failed (`turn_failed`, a persisted name).
 */
export interface WakeJob {
  taskId: string;
  attempt: number;
  reason: 'verifying' | 'turn_failed';
}

/**
 * A wake-up, not a source of truth: the indexes are. A job lost or refused (lease held by another
 * Watcher) leaves the task to the next sweep, so the job runs once and is never retried.
 */
const WAKE_JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 24 * 3_600, count: 10_000 },
};

/** Wakes a Watcher the moment a Worker hands a task over, instead of at the next sweep. */
@Injectable()
export class WakeQueue {
  constructor(
    @Inject(WAKE_QUEUES) private readonly queues: Queue[],
    private readonly keys: RedisKeys,
  ) {}

  /** A full Redis refuses the job as StoreFullError (docs/operations.md, "A full Redis"). */
  async publish(job: WakeJob): Promise<void> {
    await this.queues[this.keys.shardOf(job.taskId)]
      .add(WAKE_JOB_NAME, job, { ...WAKE_JOB_OPTIONS, jobId: `${job.taskId}-a${job.attempt}-${job.reason}` })
      .catch((error: unknown) => {
        throw storeFullOf(error);
      });
  }
}
