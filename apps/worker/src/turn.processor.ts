import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, Type } from '@nestjs/common';
import type { Job } from 'bullmq';
import { SliceOutcome, SliceRunner } from '@vigil/agent';
import type { TurnJob } from '@vigil/queue';

/**
 * One processor per shard's turn queue. `maxStalledCount: 0`: a stalled turn job is failed, never
 * re-queued, because the Watcher alone recovers tasks (DESIGN.md invariant 3).
 */
export function turnProcessorFor(queueName: string, concurrency: number): Type<WorkerHost> {
  @Processor(queueName, { concurrency, maxStalledCount: 0, lockDuration: 60_000 })
  class TurnProcessor extends WorkerHost {
    private readonly logger = new Logger(`TurnProcessor:${queueName}`);

    constructor(@Inject(SliceRunner) private readonly runner: SliceRunner) {
      super();
    }

    async process(job: Job<TurnJob>): Promise<SliceOutcome> {
      const outcome = await this.runner.run(job.data);
      this.logger.debug(
        `task ${job.data.taskId} attempt ${job.data.attempt} slice ${job.data.slice}: ${outcome}`,
      );
      return outcome;
    }
  }
  return TurnProcessor;
}
