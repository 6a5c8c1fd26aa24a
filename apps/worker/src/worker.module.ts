import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { PlatformModule } from '@vigil/platform';

@Module({})
export class WorkerModule {
  static forRoot(config: VigilConfig): DynamicModule {
    return { module: WorkerModule, imports: [PlatformModule.forRoot(config, 'worker')] };
  }
}
