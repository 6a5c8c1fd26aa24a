import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { VigilConfig } from '@vigil/config';
import { RedisKeys } from '@vigil/redis';
import { bullConnection } from './bull-connection';
import { TURN_QUEUES, TurnQueue } from './turn-queue';

/** Registers one turn queue per shard through @nestjs/bullmq and exposes them as TurnQueue. */
@Module({})
export class QueueModule {
  static forRoot(config: VigilConfig): DynamicModule {
    const keys = new RedisKeys(config.keyPrefix, config.shards);
    const names = keys.allShards().map((shard) => keys.turnQueueName(shard));
    const connection = bullConnection(config.redisUrl);
    const queues = BullModule.registerQueue(...names.map((name) => ({ name })));
    return {
      module: QueueModule,
      imports: [BullModule.forRoot({ connection, prefix: config.keyPrefix }), queues],
      providers: [
        {
          provide: TURN_QUEUES,
          inject: names.map((name) => getQueueToken(name)),
          useFactory: (...registered: Queue[]) => registered,
        },
        TurnQueue,
      ],
      exports: [TurnQueue, TURN_QUEUES, queues],
    };
  }
}
