import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { RedisConfig, StorageConfig } from '@vigil/config';
import { RedisKeys } from '@vigil/redis';
import { bullConnection } from './bull-connection';
import { TURN_QUEUES, SliceQueue } from './slice-queue';
import { WAKE_QUEUES, WakeQueue } from './wake-queue';
import {
  QUEUE_STREAMS,
  SLICE_JOB_RETENTION,
  SLICE_RETENTION,
  WAKE_RETENTION,
  withCompletedAge,
} from './job-retention';

/** Registers the slice and wake queues of every shard through @nestjs/bullmq. */
@Module({})
export class QueueModule {
  static forRoot(
    config: RedisConfig & Partial<Pick<StorageConfig, 'finishedJobRetentionMs'>>,
  ): DynamicModule {
    const keys = new RedisKeys(config.keyPrefix, config.shards);
    const names = keys.allShards().map((shard) => keys.sliceQueueName(shard));
    const wakeNames = keys.allShards().map((shard) => keys.wakeQueueName(shard));
    const connection = bullConnection(config);
    const queues = BullModule.registerQueue(
      ...[...names, ...wakeNames].map((name) => ({ name, streams: QUEUE_STREAMS })),
    );
    return {
      module: QueueModule,
      imports: [BullModule.forRoot({ connection, prefix: config.keyPrefix }), queues],
      providers: [
        {
          provide: TURN_QUEUES,
          inject: names.map((name) => getQueueToken(name)),
          useFactory: (...registered: Queue[]) => registered,
        },
        {
          provide: WAKE_QUEUES,
          inject: wakeNames.map((name) => getQueueToken(name)),
          useFactory: (...registered: Queue[]) => registered,
        },
        // FINISHED_JOB_RETENTION_MS shortens (or lengthens) how long completed jobs stay.
        ...(config.finishedJobRetentionMs === undefined
          ? []
          : [SLICE_RETENTION, WAKE_RETENTION].map((provide) => ({
              provide,
              useValue: withCompletedAge(SLICE_JOB_RETENTION, config.finishedJobRetentionMs!),
            }))),
        SliceQueue,
        WakeQueue,
      ],
      exports: [SliceQueue, TURN_QUEUES, WakeQueue, queues],
    };
  }
}
