import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { PlatformModule } from '@vigil/platform';

@Module({})
export class WatcherModule {
  static forRoot(config: VigilConfig): DynamicModule {
    return { module: WatcherModule, imports: [PlatformModule.forRoot(config, 'watcher')] };
  }
}
