import { DynamicModule, Module } from '@nestjs/common';
import { AgentModule } from '@vigil/agent';
import type { VigilConfig } from '@vigil/config';
import { ControlModule, StartChildTaskUseCase } from '@vigil/control';
import { ObjectStoreModule } from '@vigil/object-store';
import { PlatformModule } from '@vigil/platform';
import { RedisKeys } from '@vigil/redis';
import { sliceProcessorFor } from './slice.processor';
import { ToolsModule } from '@vigil/tools';

@Module({})
export class WorkerModule {
  static forRoot(config: VigilConfig): DynamicModule {
    const keys = new RedisKeys(config.keyPrefix, config.shards);
    return {
      module: WorkerModule,
      imports: [
        PlatformModule.forRoot(config, 'worker'),
        ObjectStoreModule,
        ToolsModule,
        AgentModule.forRoot(config, {
          // start_subtask creates a child through the same use case as POST /v1/tasks.
          imports: [ControlModule.forRoot(config)],
          starter: StartChildTaskUseCase,
        }),
      ],
      providers: keys
        .allShards()
        .map((shard) =>
          sliceProcessorFor(keys.sliceQueueName(shard), config.workerConcurrency, config.tenantSlotRetryMs),
        ),
    };
  }
}
