import { ConversationsController } from './conversations.controller';
import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { ControlModule } from '@vigil/control';
import { LiveEventsModule } from '@vigil/notify';
import { PlatformModule } from '@vigil/platform';
import { AdminModule } from './admin.module';
import { TaskEventsController } from './task-events.controller';
import { TasksController } from './tasks.controller';

@Module({})
export class ApiModule {
  static forRoot(config: VigilConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        PlatformModule.forRoot(config, 'api'),
        ControlModule.forRoot(config),
        AdminModule.forRoot(config),
        LiveEventsModule,
      ],
      controllers: [TasksController, TaskEventsController, ConversationsController],
    };
  }
}
