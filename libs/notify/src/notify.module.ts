import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { REDIS, RedisKeys } from '@vigil/redis';
import { createNotifier } from './create-notifier';
import { Notifier } from './notifier';

/** The notifier app's module: one Notifier, started and stopped by the app's lifecycle hooks. */
@Module({
  providers: [
    {
      provide: Notifier,
      inject: [REDIS, RedisKeys, VIGIL_CONFIG],
      useFactory: (redis: Redis, keys: RedisKeys, config: VigilConfig) => createNotifier(redis, keys, config),
    },
  ],
  exports: [Notifier],
})
export class NotifyModule {}
