import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { REDIS, RedisKeys } from '@vigil/redis';
import { MessageLog } from '@vigil/tasks';
import { TaskEventStream } from './task-event-stream';

/** What the API needs to serve live streams: reads only, no consumer group, no delivery. */
@Module({
  providers: [
    {
      provide: MessageLog,
      inject: [REDIS, RedisKeys],
      useFactory: (redis: Redis, keys: RedisKeys) => new MessageLog(redis, keys),
    },
    {
      provide: TaskEventStream,
      inject: [REDIS, RedisKeys, VIGIL_CONFIG, MessageLog],
      useFactory: (redis: Redis, keys: RedisKeys, config: VigilConfig, log: MessageLog) =>
        new TaskEventStream(redis, keys, config, log),
    },
  ],
  exports: [TaskEventStream],
})
export class LiveEventsModule {}
