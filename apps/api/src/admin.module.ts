import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardModule } from '@bull-board/nestjs';
import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import type { AdminConfig, RedisConfig } from '@vigil/config';
import { QUEUE_STREAMS } from '@vigil/queue';
import { RedisKeys } from '@vigil/redis';
import { basicAuth } from './admin-auth';
import { AdminDashboardModule } from './dashboard/admin-dashboard.module';

/**
 * The operators' pages, behind basic auth (user `admin`, password ADMIN_PASSWORD): Bull Board at
 * /admin/queues and the task dashboard at /admin/tasks. Without ADMIN_PASSWORD neither exists (404).
 */
@Module({})
export class AdminModule {
  /** `control`: the app's ControlModule, whose use cases the dashboard's buttons call; `schedules` its SchedulesModule. */
  static forRoot(
    config: AdminConfig & RedisConfig,
    control: DynamicModule,
    schedules?: DynamicModule,
  ): DynamicModule {
    if (!config.adminPassword) return { module: AdminModule };
    const keys = new RedisKeys(config.keyPrefix, config.shards);
    return {
      module: AdminModule,
      imports: [
        AdminDashboardModule.forRoot(config.adminPassword, control, schedules),
        BullBoardModule.forRoot({
          route: '/admin/queues',
          adapter: ExpressAdapter,
          middleware: basicAuth(config.adminPassword),
        }),
        ...keys
          .allShards()
          .map((shard) =>
            BullBoardModule.forFeature({ name: keys.sliceQueueName(shard), adapter: BullMQAdapter }),
          ),
        // The notifier's webhook queues, registered here only so the board shows (and can retry) them.
        BullModule.registerQueue(
          ...keys
            .allShards()
            .map((shard) => ({ name: keys.webhookQueueName(shard), streams: QUEUE_STREAMS })),
        ),
        ...keys
          .allShards()
          .map((shard) =>
            BullBoardModule.forFeature({ name: keys.webhookQueueName(shard), adapter: BullMQAdapter }),
          ),
      ],
    };
  }
}
