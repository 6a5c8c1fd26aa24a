import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, Type } from '@nestjs/common';
import type { Job } from 'bullmq';
import { FireScheduleUseCase, fireTimeOf, ScheduleQueue, type FireJob } from '@vigil/schedules';

/**
 * Processes the fire jobs of the schedules' BullMQ job schedulers (docs/schedules.md, "How fires
 * happen"): each fire time's job is fetched by one Watcher, and its decision is claimed in Redis,
 * so a fire time yields one task whatever the number of Watchers.
 */
export function scheduleFireProcessorFor(queueName: string): Type<WorkerHost> {
  @Processor(queueName, { concurrency: 8 })
  class ScheduleFireProcessor extends WorkerHost {
    private readonly logger = new Logger('ScheduleFireProcessor');

    constructor(
      @Inject(FireScheduleUseCase) private readonly fire: FireScheduleUseCase,
      @Inject(ScheduleQueue) private readonly schedulers: ScheduleQueue,
    ) {
      super();
    }

    async process(job: Job<FireJob>): Promise<string> {
      const { tenantId, scheduleId } = job.data;
      const fireTime = fireTimeOf(job);
      const result = await this.fire.fire(tenantId, scheduleId, fireTime);
      // A job scheduler that outlived its schedule (a delete that stopped half-way) ends here.
      if (result.state === 'not_found') await this.schedulers.remove(scheduleId);
      const outcome = result.state === 'decided' ? result.run.outcome : result.state;
      this.logger.log(
        `schedule ${scheduleId} fire ${new Date(fireTime).toISOString()}: ${outcome}` +
          (result.state === 'decided' && result.run.taskId ? ` (task ${result.run.taskId})` : ''),
      );
      return outcome;
    }
  }
  return ScheduleFireProcessor;
}
