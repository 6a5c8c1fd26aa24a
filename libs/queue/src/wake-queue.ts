import { Inject, Injectable, Optional } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';
import { RedisKeys } from '@vigil/redis';
import { storeFullOf } from '@vigil/tasks';
import { JobRetention, removalOptions, WAKE_JOB_RETENTION, WAKE_RETENTION } from './job-retention';

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
 * Watcher) leaves the task to the next sweep, so the job runs once and is never retried. Its id
 * (task, attempt, reason) is published at most once: either reason ends its attempt's slices.
 */
const WAKE_JOB_OPTIONS: JobsOptions = { attempts: 1 };

/** Wakes a Watcher the moment a Worker hands a task over, instead of at the next sweep. */
@Injectable()
export class WakeQueue {
  private readonly options: JobsOptions;

  constructor(
    @Inject(WAKE_QUEUES) private readonly queues: Queue[],
    private readonly keys: RedisKeys,
    @Optional() @Inject(WAKE_RETENTION) retention: JobRetention = WAKE_JOB_RETENTION,
  ) {
    this.options = { ...WAKE_JOB_OPTIONS, ...removalOptions(retention) };
  }

  /** A full Redis refuses the job as StoreFullError (docs/operations.md, "A full Redis"). */
  async publish(job: WakeJob): Promise<void> {
    await this.queues[this.keys.shardOf(job.taskId)]
      .add(WAKE_JOB_NAME, job, { ...this.options, jobId: `${job.taskId}-a${job.attempt}-${job.reason}` })
      .catch((error: unknown) => {
        throw storeFullOf(error);
      });
  }
}
