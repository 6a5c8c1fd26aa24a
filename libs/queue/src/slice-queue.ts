import { Inject, Injectable, Optional } from '@nestjs/common';
import { JobsOptions, Queue } from 'bullmq';
import { RedisKeys } from '@vigil/redis';
import { storeFullOf } from '@vigil/tasks';
import { JobRetention, removalOptions, SLICE_JOB_RETENTION, SLICE_RETENTION } from './job-retention';
import { SLICE_JOB_NAME, SLICE_JOB_OPTIONS, SliceJob, sliceJobId } from './slice-job';

export const TURN_QUEUES = Symbol('TURN_QUEUES');

/** A Worker asks whether slices wait on a shard's queue at most this often; the answer is shared meanwhile. */
export const BACKLOG_CHECK_INTERVAL_MS = 1_000;

/** Publishes slices to the slice queue of the task's shard. */
@Injectable()
export class SliceQueue {
  private readonly options: JobsOptions;
  private readonly backlog = new Map<number, { at: number; answer: Promise<boolean> }>();

  constructor(
    @Inject(TURN_QUEUES) private readonly queues: Queue[],
    private readonly keys: RedisKeys,
    @Optional() @Inject(SLICE_RETENTION) retention: JobRetention = SLICE_JOB_RETENTION,
  ) {
    this.options = { ...SLICE_JOB_OPTIONS, ...removalOptions(retention) };
  }

  /** The shard of a task: which queue (and which of a Worker's processors) its slices go through. */
  shardOf(taskId: string): number {
    return this.keys.shardOf(taskId);
  }

  queueFor(taskId: string): Queue {
    return this.queues[this.keys.shardOf(taskId)];
  }

  /** A full Redis refuses the job as StoreFullError (docs/operations.md, "A full Redis"). */
  async publish(job: SliceJob): Promise<string> {
    try {
      const added = await this.queueFor(job.taskId).add(SLICE_JOB_NAME, job, {
        ...this.options,
        jobId: sliceJobId(job),
      });
      return added.id ?? sliceJobId(job);
    } catch (error) {
      throw storeFullOf(error);
    }
  }

  /**
   * Publishes a slice whose job vanished; a finished job of the same id (kept until its age or
   * count runs out) is removed first, so whether it is still kept never decides anything.
   */
  async republish(job: SliceJob): Promise<string> {
    const existing = await this.queueFor(job.taskId).getJob(sliceJobId(job));
    if (existing) {
      const state = await existing.getState();
      if (state === 'completed' || state === 'failed') await existing.remove();
    }
    return this.publish(job);
  }

  /**
   * Wakes a slice job parked for its tenant's running place (docs/operations.md, "Tenant limits"):
   * a delayed job is due at once; a job in any other state (already back, gone) is left alone.
   */
  async wakeParked(taskId: string, jobId: string): Promise<void> {
    const job = await this.queueFor(taskId).getJob(jobId);
    if (!job || !(await job.isDelayed())) return;
    try {
      await job.promote();
    } catch (error) {
      // Came due or was taken between the two reads: it is on its way already.
      if (await job.isDelayed()) throw error;
    }
  }

  /**
   * Whether slice jobs wait for a Worker on the task's shard (waiting or prioritized; a delayed job
   * is not due), as learned at most BACKLOG_CHECK_INTERVAL_MS ago: one count per shard and interval,
   * shared by every slice that asks meanwhile. A count Redis refuses answers true, so the caller
   * hands its task on through the queue as when nothing is known.
   */
  hasBacklog(taskId: string, now = Date.now()): Promise<boolean> {
    const shard = this.keys.shardOf(taskId);
    const known = this.backlog.get(shard);
    if (known && now - known.at < BACKLOG_CHECK_INTERVAL_MS) return known.answer;
    const answer = this.queueFor(taskId)
      .getJobCountByTypes('waiting', 'prioritized')
      .then(
        (count) => count > 0,
        () => true,
      );
    this.backlog.set(shard, { at: now, answer });
    return answer;
  }

  /** Whether a slice job for this task is waiting, delayed or active. */
  async hasLiveJob(job: Pick<SliceJob, 'taskId' | 'attempt' | 'slice'>): Promise<boolean> {
    const state = await this.queueFor(job.taskId).getJobState(sliceJobId(job));
    return state === 'waiting' || state === 'active' || state === 'delayed' || state === 'prioritized';
  }
}
