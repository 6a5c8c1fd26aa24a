import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { CLOCKS_CONFIG, ClockConfig } from '@vigil/config';
import { REDIS, RedisKeys } from '@vigil/redis';
import { LiveWatchers, MessageLog } from '@vigil/tasks';
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
      inject: [REDIS, RedisKeys, CLOCKS_CONFIG, MessageLog],
      useFactory: (redis: Redis, keys: RedisKeys, clocks: ClockConfig, log: MessageLog) =>
        new TaskEventStream(redis, keys, clocks, log, new LiveWatchers(redis, keys)),
    },
  ],
  exports: [TaskEventStream],
})
export class LiveEventsModule {}
