import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { PlatformModule } from '@vigil/platform';
import { RedisKeys } from '@vigil/redis';
import { SupervisorModule } from '@vigil/supervisor';
import { SweepScheduler } from './sweep.scheduler';
import { wakeProcessorFor } from './wake.processor';
import { ToolsModule } from '@vigil/tools';

@Module({})
export class WatcherModule {
  static forRoot(config: VigilConfig): DynamicModule {
    const keys = new RedisKeys(config.keyPrefix, config.shards);
    return {
      module: WatcherModule,
      imports: [PlatformModule.forRoot(config, 'watcher'), ToolsModule, SupervisorModule.forRoot(config)],
      providers: [
        SweepScheduler,
        ...keys.allShards().map((shard) => wakeProcessorFor(keys.wakeQueueName(shard))),
      ],
    };
  }
}
