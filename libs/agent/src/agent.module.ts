import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DynamicModule, Module, type Type } from '@nestjs/common';
import type { VigilConfig } from '@vigil/config';
import { KindsModule } from '@vigil/builtin-kinds';
import { QueueModule, SliceQueue, WakeQueue } from '@vigil/queue';
import { LiveOutputChannel, LiveWatchers, TaskLifecycleModule, TasksModule } from '@vigil/tasks';
import { ModelProviders } from './models/model-providers';
import { SpendMetrics } from './models/spend-metrics';
import { ActiveSlices } from './runtime/active-slices';
import { CallWatchdog } from './runtime/call-watchdog';
import { DrainMetrics } from './runtime/drain-metrics';
import { LoopLag } from './runtime/loop-lag';
import { GlobalSpendGate } from './runtime/global-spend.gate';
import { LiveModelOutput } from './runtime/live-model-output';
import { WatchedTasks } from './runtime/watched-tasks';
import { SliceContextCache } from './runtime/slice-context';
import { SliceRunner } from './runtime/slice-runner';
import { SliceServices, WORKER_ID } from './runtime/slice-services';
import { sliceSettingsProvider } from './runtime/slice-settings';
import { ToolExecutor } from './runtime/tool-executor';
import { WorkerLiveness } from './runtime/worker-liveness';
import { TenantSlotGate } from './runtime/tenant-slot.gate';
import { OutputClaimCheck } from './runtime/output-claim-check';
import { CHILD_TASKS, type ChildTaskStarter } from './runtime/child-tasks';
import { KindVersionGate } from './versions/kind-version-gate';
import { VersionWaits } from './versions/version-waits';
import { WorkerKinds } from './versions/worker-kinds';

/** What starts child missions in this process (the Worker app wires libs/control's use case). */
export interface AgentChildTasks {
  imports: DynamicModule[];
  starter: Type<ChildTaskStarter>;
}

/**
 * The Worker's runtime: slices, the agent loop, tool calls through the write journal, model
 * providers. Needs OBJECT_STORE (ObjectStoreModule) for tool outputs too large for Redis.
 */
@Module({})
export class AgentModule {
  static forRoot(config: VigilConfig, children?: AgentChildTasks): DynamicModule {
    const queues = QueueModule.forRoot(config);
    const lifecycle = TaskLifecycleModule.forRoot({ module: queues, slices: SliceQueue, wakeups: WakeQueue });
    return {
      module: AgentModule,
      imports: [TasksModule, KindsModule, queues, lifecycle, ...(children?.imports ?? [])],
      providers: [
        ...(children ? [{ provide: CHILD_TASKS, useExisting: children.starter }] : []),
        {
          provide: WORKER_ID,
          useFactory: () => `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
        },
        SliceContextCache,
        ToolExecutor,
        OutputClaimCheck,
        ModelProviders,
        ActiveSlices,
        CallWatchdog,
        LoopLag,
        GlobalSpendGate,
        TenantSlotGate,
        {
          provide: LiveModelOutput,
          inject: [LiveOutputChannel, LiveWatchers],
          useFactory: (channel: LiveOutputChannel, watchers: LiveWatchers) =>
            new LiveModelOutput(channel, new WatchedTasks(watchers)),
        },
        sliceSettingsProvider,
        SliceServices,
        SliceRunner,
        WorkerLiveness,
        WorkerKinds,
        KindVersionGate,
        VersionWaits,
        SpendMetrics,
        DrainMetrics,
      ],
      exports: [SliceRunner, SliceContextCache, ModelProviders, WORKER_ID, queues, TasksModule, KindsModule],
    };
  }
}
