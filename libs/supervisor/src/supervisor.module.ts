import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DynamicModule, Module } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { KindsModule } from '@vigil/builtin-kinds';
import { ObjectStoreModule } from '@vigil/object-store';
import { ArchiveMetrics } from '@vigil/platform';
import { QueueModule, SliceQueue, WakeQueue } from '@vigil/queue';
import { TaskArchiveWriter, TaskLifecycleModule, TasksModule } from '@vigil/tasks';
import { DeadWorkerDetector } from './dead-worker.detector';
import { ExitCheckRunner } from './exit-check.runner';
import { FailureReporter } from './failure-report';
import { LeaseService } from './lease.service';
import { RetryPublisher } from './retry-publisher';
import { RetentionSweep } from './retention.sweep';
import { StoreWatch } from './store-watch';
import { SupervisorSweep } from './supervisor.sweep';
import { TaskSupervisor } from './task-supervisor';
import { ToolsModule } from '@vigil/tools';

/** The Watcher's deterministic state machine: stale detection, recovery, verification, limits. */
@Module({})
export class SupervisorModule {
  static forRoot(config: VigilConfig): DynamicModule {
    const queues = QueueModule.forRoot(config);
    const lifecycle = TaskLifecycleModule.forRoot({ module: queues, slices: SliceQueue, wakeups: WakeQueue });
    return {
      module: SupervisorModule,
      // The gateway is global: one per process, whoever imports ToolsModule first.
      imports: [TasksModule, KindsModule, ToolsModule, ObjectStoreModule, queues, lifecycle],
      providers: [
        {
          provide: 'WATCHER_ID',
          useFactory: () => `watcher-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
        },
        LeaseService,
        ExitCheckRunner,
        FailureReporter,
        RetryPublisher,
        DeadWorkerDetector,
        StoreWatch,
        TaskSupervisor,
        SupervisorSweep,
        TaskArchiveWriter,
        RetentionSweep,
        // Retention's counters: the Watcher archives finished tasks.
        ArchiveMetrics,
      ],
      exports: [SupervisorSweep, RetentionSweep, TaskSupervisor, LeaseService, ArchiveMetrics, StoreWatch],
    };
  }
}
