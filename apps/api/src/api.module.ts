import { DynamicModule, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Redis } from 'ioredis';
import { LIMITS_CONFIG, LimitsConfig, REDIS_CONFIG, RedisConfig, VigilConfig } from '@vigil/config';
import { ControlModule, RATE_LIMIT_WINDOW_MS } from '@vigil/control';
import { ConversationsModule } from '@vigil/conversations';
import { HumanAnswerController } from './human-answer.controller';
import { LiveEventsModule } from '@vigil/notify';
import { ObjectStoreModule } from '@vigil/object-store';
import { PlatformModule } from '@vigil/platform';
import { REDIS } from '@vigil/redis';
import { AdminModule } from './admin.module';
import { ApiMetrics } from './api-metrics';
import { ConversationsController } from './conversations.controller';
import { RedisThrottlerStorage } from './limits/redis-throttler.storage';
import { SseSlots } from './limits/sse-slots';
import { TaskEventsController } from './task-events.controller';
import { TaskArtifactsController } from './task-artifacts.controller';
import { TenantController } from './tenant.controller';
import { TasksController } from './tasks.controller';
import { SchedulesController } from './schedules.controller';
import { SchedulesModule } from '@vigil/schedules';
import { TaskSteeringController } from './task-steering.controller';
import { ToolsModule } from '@vigil/tools';

export { RATE_LIMIT_WINDOW_MS };

@Module({})
export class ApiModule {
  static forRoot(config: VigilConfig): DynamicModule {
    // One instance shared with the admin pages, whose dashboard buttons call the same use cases.
    const control = ControlModule.forRoot(config);
    const schedules = SchedulesModule.forRoot(config, control);
    return {
      module: ApiModule,
      imports: [
        PlatformModule.forRoot(config, 'api'),
        // Global: archived tasks are read back from it (docs/api.md, "Archived tasks").
        ObjectStoreModule,
        ToolsModule,
        control,
        AdminModule.forRoot(config, control, schedules),
        ConversationsModule.forRoot(control),
        schedules,
        LiveEventsModule,
        ThrottlerModule.forRootAsync({
          inject: [LIMITS_CONFIG, REDIS_CONFIG, REDIS],
          useFactory: (limits: LimitsConfig, redisConfig: RedisConfig, redis: Redis) => ({
            throttlers: [{ name: 'default', ttl: RATE_LIMIT_WINDOW_MS, limit: limits.rateLimitPerMinute }],
            storage: new RedisThrottlerStorage(redis, redisConfig.keyPrefix),
          }),
        }),
      ],
      controllers: [
        TasksController,
        TaskArtifactsController,
        TaskSteeringController,
        TaskEventsController,
        ConversationsController,
        HumanAnswerController,
        TenantController,
        SchedulesController,
      ],
      providers: [SseSlots, ApiMetrics],
    };
  }
}
