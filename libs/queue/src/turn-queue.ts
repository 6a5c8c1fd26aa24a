import { Inject, Injectable } from '@nestjs/common';
import { Queue } from 'bullmq';
import { RedisKeys } from '@vigil/redis';
import { TURN_JOB_NAME, TURN_JOB_OPTIONS, TurnJob, turnJobId } from './turn-job';

export const TURN_QUEUES = Symbol('TURN_QUEUES');

/** Publishes slices to the turn queue of the task's shard. */
@Injectable()
export class TurnQueue {
  constructor(
    @Inject(TURN_QUEUES) private readonly queues: Queue[],
    private readonly keys: RedisKeys,
  ) {}

  queueFor(taskId: string): Queue {
    return this.queues[this.keys.shardOf(taskId)];
  }

  async publish(job: TurnJob): Promise<string> {
    const added = await this.queueFor(job.taskId).add(TURN_JOB_NAME, job, {
      ...TURN_JOB_OPTIONS,
      jobId: turnJobId(job),
    });
    return added.id ?? turnJobId(job);
  }

  /** Publishes a slice whose job vanished; a finished job of the same id is removed first. */
  async republish(job: TurnJob): Promise<string> {
    const existing = await this.queueFor(job.taskId).getJob(turnJobId(job));
    if (existing) {
      const state = await existing.getState();
      if (state === 'completed' || state === 'failed') await existing.remove();
    }
    return this.publish(job);
  }

  /** Whether a slice job for this task is waiting, delayed or active. */
  async hasLiveJob(job: Pick<TurnJob, 'taskId' | 'attempt' | 'slice'>): Promise<boolean> {
    const state = await this.queueFor(job.taskId).getJobState(turnJobId(job));
    return state === 'waiting' || state === 'active' || state === 'delayed' || state === 'prioritized';
  }
}
