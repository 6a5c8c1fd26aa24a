import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { PlatformModule } from '@vigil/platform';
import { SupervisorModule } from '@vigil/supervisor';
import { SweepScheduler } from './sweep.scheduler';

@Module({})
export class WatcherModule {
  static forRoot(config: VigilConfig): DynamicModule {
    return {
      module: WatcherModule,
      imports: [PlatformModule.forRoot(config, 'watcher'), SupervisorModule.forRoot(config)],
      providers: [SweepScheduler],
    };
  }
}
