import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import {
  CLOCKS_CONFIG,
  LIMITS_CONFIG,
  REDIS_CONFIG,
  SERVER_CONFIG,
  WEBHOOKS_CONFIG,
  type ClockConfig,
  type LimitsConfig,
  type RedisConfig,
  type ServerConfig,
  type WebhookConfig,
} from '@vigil/config';
import { METRICS_REGISTRY } from '@vigil/platform';
import { REDIS, RedisKeys } from '@vigil/redis';
import { TRACING, type Tracing } from '@vigil/telemetry';
import { createNotifier } from './create-notifier';
import { Notifier } from './notifier';

/** The notifier app's module: one Notifier, started and stopped by the app's lifecycle hooks. */
@Module({
  providers: [
    {
      provide: Notifier,
      inject: [
        REDIS,
        RedisKeys,
        REDIS_CONFIG,
        CLOCKS_CONFIG,
        LIMITS_CONFIG,
        WEBHOOKS_CONFIG,
        SERVER_CONFIG,
        METRICS_REGISTRY,
        TRACING,
      ],
      useFactory: (
        redis: Redis,
        keys: RedisKeys,
        redisConfig: RedisConfig,
        clocks: ClockConfig,
        limits: LimitsConfig,
        webhooks: WebhookConfig,
        server: ServerConfig,
        registry: Registry,
        tracing: Tracing,
      ) =>
        createNotifier(
          redis,
          keys,
          { redis: redisConfig, clocks, limits, webhooks, server },
          registry,
          tracing,
        ),
    },
  ],
  exports: [Notifier],
})
export class NotifyModule {}
