import { DynamicModule, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Redis } from 'ioredis';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { ControlModule } from '@vigil/control';
import { LiveEventsModule } from '@vigil/notify';
import { PlatformModule } from '@vigil/platform';
import { REDIS } from '@vigil/redis';
import { AdminModule } from './admin.module';
import { ApiMetrics } from './api-metrics';
import { ConversationsController } from './conversations.controller';
import { RedisThrottlerStorage } from './limits/redis-throttler.storage';
import { SseSlots } from './limits/sse-slots';
import { TaskEventsController } from './task-events.controller';
import { TasksController } from './tasks.controller';

/** The rate limit's window: RATE_LIMIT_PER_MINUTE requests per key and route in each. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

@Module({})
export class ApiModule {
  static forRoot(config: VigilConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        PlatformModule.forRoot(config, 'api'),
        ControlModule.forRoot(config),
        AdminModule.forRoot(config),
        LiveEventsModule,
        ThrottlerModule.forRootAsync({
          inject: [VIGIL_CONFIG, REDIS],
          useFactory: (vigil: VigilConfig, redis: Redis) => ({
            throttlers: [{ name: 'default', ttl: RATE_LIMIT_WINDOW_MS, limit: vigil.rateLimitPerMinute }],
            storage: new RedisThrottlerStorage(redis, vigil.keyPrefix),
          }),
        }),
      ],
      controllers: [TasksController, TaskEventsController, ConversationsController],
      providers: [SseSlots, ApiMetrics],
    };
  }
}
