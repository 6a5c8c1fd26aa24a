import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, Type } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { WakeJob } from '@vigil/queue';
import { InspectionOutcome, TaskSupervisor } from '@vigil/supervisor';

/**
 * Decides about a task the moment its Worker hands it over (a completion claim, a failed attempt)
 * instead of at the next sweep: the same inspection under the same lease as the sweep's, which
 * stays the backstop for a lost wake-up.
 */
export function wakeProcessorFor(queueName: string): Type<WorkerHost> {
  @Processor(queueName, { concurrency: 8, maxStalledCount: 0 })
  class WakeProcessor extends WorkerHost {
    private readonly logger = new Logger(`WakeProcessor:${queueName}`);

    constructor(@Inject(TaskSupervisor) private readonly supervisor: TaskSupervisor) {
      super();
    }

    async process(job: Job<WakeJob>): Promise<InspectionOutcome> {
      const suspicion = job.data.reason === 'verifying' ? 'verifying' : 'deadline';
      const decision = await this.supervisor.inspect(job.data.taskId, suspicion);
      this.logger.log(
        `task ${job.data.taskId} attempt ${job.data.attempt}: woken (${job.data.reason}), ${decision}`,
      );
      return decision;
    }
  }
  return WakeProcessor;
}
