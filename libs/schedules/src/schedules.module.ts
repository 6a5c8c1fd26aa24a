import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import type { RedisConfig } from '@vigil/config';
import { bullConnection, QUEUE_STREAMS } from '@vigil/queue';
import { RedisKeys } from '@vigil/redis';
import { ChangeScheduleUseCase } from './change-schedule.use-case';
import { CreateScheduleUseCase } from './create-schedule.use-case';
import { FireScheduleUseCase } from './fire-schedule.use-case';
import { ReconcileSchedulersUseCase } from './reconcile-schedulers.use-case';
import { SCHEDULE_QUEUE, ScheduleQueue } from './schedule-queue';
import { ScheduleStore } from './schedule.store';

const EXPORTED = [
  ScheduleStore,
  ScheduleQueue,
  CreateScheduleUseCase,
  ChangeScheduleUseCase,
  FireScheduleUseCase,
  ReconcileSchedulersUseCase,
];

/**
 * Schedules (docs/schedules.md): the store, the BullMQ queue of their job schedulers and the use
 * cases. `control` is the app's ControlModule: a fire creates its task through the same use case
 * as `POST /v1/tasks`.
 */
@Module({})
export class SchedulesModule {
  static forRoot(config: RedisConfig, control: DynamicModule): DynamicModule {
    const queueName = new RedisKeys(config.keyPrefix, config.shards).scheduleQueueName();
    const queue = BullModule.registerQueue({
      name: queueName,
      connection: bullConnection(config, 'vigil-schedules'),
      prefix: config.keyPrefix,
      streams: QUEUE_STREAMS,
    });
    return {
      module: SchedulesModule,
      imports: [control, queue],
      providers: [{ provide: SCHEDULE_QUEUE, useExisting: getQueueToken(queueName) }, ...EXPORTED],
      exports: [...EXPORTED, queue],
    };
  }
}
