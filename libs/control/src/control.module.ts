import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { KindsModule } from '@vigil/builtin-kinds';
import { QueueModule, SliceQueue, WakeQueue } from '@vigil/queue';
import { TaskLifecycleModule, TasksModule } from '@vigil/tasks';
import { CreateTaskUseCase } from './create-task.use-case';
import { creationSettingsProvider } from './creation-settings';
import { GetTaskReportUseCase } from './get-task-report.use-case';
import { PauseTaskUseCase } from './pause-task.use-case';
import { ProvideInputUseCase } from './provide-input.use-case';
import { ResumeTaskUseCase } from './resume-task.use-case';
import { StopTaskUseCase } from './stop-task.use-case';
import { StartChildTaskUseCase } from './start-child-task.use-case';
import { ListChildrenUseCase } from './list-children.use-case';
import { ListArtifactsUseCase } from './list-artifacts.use-case';
import { GetArtifactUseCase } from './get-artifact.use-case';
import { TaskLogs } from './task-logs';
import { CreateRateWindow } from './create-rate-window';
import { SteerTaskUseCase } from './steer-task.use-case';
import { TenantSlotQueue } from './tenant-slot-queue';

const USE_CASES = [
  CreateTaskUseCase,
  StopTaskUseCase,
  PauseTaskUseCase,
  ResumeTaskUseCase,
  ProvideInputUseCase,
  TaskLogs,
  GetTaskReportUseCase,
  StartChildTaskUseCase,
  ListChildrenUseCase,
  ListArtifactsUseCase,
  GetArtifactUseCase,
  CreateRateWindow,
  SteerTaskUseCase,
];

/** What a user can ask of a task; the API's controllers call only these. */
@Module({})
export class ControlModule {
  static forRoot(config: VigilConfig): DynamicModule {
    const queues = QueueModule.forRoot(config);
    const lifecycle = TaskLifecycleModule.forRoot({ module: queues, slices: SliceQueue, wakeups: WakeQueue });
    return {
      module: ControlModule,
      imports: [TasksModule, KindsModule, queues, lifecycle],
      providers: [creationSettingsProvider, TenantSlotQueue, ...USE_CASES],
      exports: [...USE_CASES, TasksModule, queues, lifecycle],
    };
  }
}
