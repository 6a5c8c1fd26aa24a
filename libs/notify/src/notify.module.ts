import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { METRICS_REGISTRY } from '@vigil/platform';
import { REDIS, RedisKeys } from '@vigil/redis';
import { createNotifier } from './create-notifier';
import { Notifier } from './notifier';

/** The notifier app's module: one Notifier, started and stopped by the app's lifecycle hooks. */
@Module({
  providers: [
    {
      provide: Notifier,
      inject: [REDIS, RedisKeys, VIGIL_CONFIG, METRICS_REGISTRY],
      useFactory: (redis: Redis, keys: RedisKeys, config: VigilConfig, registry: Registry) =>
        createNotifier(redis, keys, config, registry),
    },
  ],
  exports: [Notifier],
})
export class NotifyModule {}
