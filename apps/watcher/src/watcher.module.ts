import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { PlatformModule } from '@vigil/platform';
import { RedisKeys } from '@vigil/redis';
import { SupervisorModule } from '@vigil/supervisor';
import { SweepScheduler } from './sweep.scheduler';
import { wakeProcessorFor } from './wake.processor';
import { ToolsModule } from '@vigil/tools';
import { ControlModule } from '@vigil/control';
import { SchedulesModule } from '@vigil/schedules';
import { scheduleFireProcessorFor } from './schedule-fire.processor';
import { ScheduleReconcileScheduler } from './schedule-reconcile.scheduler';

@Module({})
export class WatcherModule {
  static forRoot(config: VigilConfig): DynamicModule {
    const keys = new RedisKeys(config.keyPrefix, config.shards);
    return {
      module: WatcherModule,
      imports: [
        PlatformModule.forRoot(config, 'watcher'),
        ToolsModule,
        SupervisorModule.forRoot(config),
        // The schedules' fires create tasks through the same use case as POST /v1/tasks.
        SchedulesModule.forRoot(config, ControlModule.forRoot(config)),
      ],
      providers: [
        SweepScheduler,
        ScheduleReconcileScheduler,
        scheduleFireProcessorFor(keys.scheduleQueueName()),
        ...keys.allShards().map((shard) => wakeProcessorFor(keys.wakeQueueName(shard))),
      ],
    };
  }
}
