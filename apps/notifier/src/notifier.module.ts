import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { PlatformModule } from '@vigil/platform';

@Module({})
export class NotifierModule {
  static forRoot(config: VigilConfig): DynamicModule {
    return { module: NotifierModule, imports: [PlatformModule.forRoot(config, 'notifier')] };
  }
}
