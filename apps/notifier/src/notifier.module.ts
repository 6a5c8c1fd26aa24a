import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { NotifyModule } from '@vigil/notify';
import { PlatformModule } from '@vigil/platform';
import { NotifierLifecycle } from './notifier.lifecycle';

@Module({})
export class NotifierModule {
  static forRoot(config: VigilConfig): DynamicModule {
    return {
      module: NotifierModule,
      imports: [PlatformModule.forRoot(config, 'notifier'), NotifyModule],
      providers: [NotifierLifecycle],
    };
  }
}
