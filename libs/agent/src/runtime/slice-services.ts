import { Inject, Injectable, Optional } from '@nestjs/common';
import { ArtifactList, ChildTaskRepository, SpendLedger, StepRecorder, type TaskRecord } from '@vigil/tasks';
import { NOOP_TRACING, TRACING, type SpanParent, type Tracing } from '@vigil/telemetry';
import { SliceQueue } from '@vigil/queue';
import type { ModelProvider } from '../models/model-provider';
import { ModelProviders } from '../models/model-providers';
import { SpendMetrics } from '../models/spend-metrics';
import { CallWatchdog } from './call-watchdog';
import { CHILD_TASKS, type ChildTaskStarter } from './child-tasks';
import { GlobalSpendGate } from './global-spend.gate';
import { SLICE_SETTINGS, type SliceSettings } from './slice-settings';
import { LoopLag } from './loop-lag';
import { LiveModelOutput } from './live-model-output';
import { ModelSpend } from './model-spend';
import { PaidModelCall } from './paid-model-call';
import { OutputClaimCheck } from './output-claim-check';
import { RecordedStepLedger, type LedgerSlice } from './step-ledger';
import { TenantSlotGate } from './tenant-slot.gate';
import { ToolExecutor } from './tool-executor';
import { KindVersionGate } from '../versions/kind-version-gate';

/** This Worker process's id (also its liveness connection's name). */
export const WORKER_ID = 'WORKER_ID';

/**
 * What every slice of one Worker shares, injected once: where steps are recorded, how tools and
 * models are called, what pays for the calls, the deadlines' watchdog, the settings slices read. A slice
 * gets its own step ledger and paid model call from here.
 */
@Injectable()
export class SliceServices {
  constructor(
    readonly recorder: StepRecorder,
    readonly executor: ToolExecutor,
    readonly providers: ModelProviders,
    readonly globalSpend: GlobalSpendGate,
    readonly spendLedger: SpendLedger,
    readonly watchdog: CallWatchdog,
    readonly loopLag: LoopLag,
    @Inject(SLICE_SETTINGS) readonly config: SliceSettings,
    @Inject(WORKER_ID) readonly workerId: string,
    @Optional() readonly spendMetrics?: SpendMetrics,
    /** A parent's children (their results, a child held for one of its parent's places). */
    @Optional() readonly childTasks?: ChildTaskRepository,
    /** Starts child missions (`start_subtask`); without it, a mission has no start_subtask tool. */
    @Optional() @Inject(CHILD_TASKS) readonly children?: ChildTaskStarter,
    /** Tool outputs larger than MAX_INLINE_OUTPUT_BYTES go to the object store (always, in the Worker). */
    @Optional() readonly outputs?: OutputClaimCheck,
    /** The task's artifact list: a finding's `artifacts` are checked against it. */
    @Optional() readonly artifactList?: ArtifactList,
    @Optional() @Inject(TRACING) private readonly tracer?: Tracing,
    /** The models' text as it streams, for the task's live event stream. */
    @Optional() readonly liveOutput?: LiveModelOutput,
    /** The pick-up check of kind versions (docs/kinds.md, "Versions"); without it every version runs. */
    @Optional() readonly kindVersions?: KindVersionGate,
    /** The tenants' running places (catalog `maxRunning`); without it no tenant is limited. */
    @Optional() readonly tenantSlots?: TenantSlotGate,
    /**
     * The slice queue, asked whether slices wait for a Worker: without one, every slice hands its
     * task on through the queue; with one, a slice whose shard has none waiting runs the next at once.
     */
    @Optional() readonly sliceQueue?: SliceQueue,
  ) {}

  /** Traces (docs/observability.md); the no-op when the process has none. */
  get tracing(): Tracing {
    return this.tracer ?? NOOP_TRACING;
  }

  /** The slice's model calls, paid from the task's budget at this attempt, the global cap and the tenant's day. */
  paidModelCall(
    task: TaskRecord,
    attempt: number,
    provider: ModelProvider,
    /** The slice's span: each call is a span under it. */
    span?: SpanParent,
  ): PaidModelCall {
    const money = new ModelSpend(this.spendLedger, this.globalSpend, {
      id: task.id,
      attempt,
      budgetUsd: task.budgetUsd,
      tenantId: task.tenantId,
    });
    const trace = span && this.tracing.enabled ? { tracing: this.tracing, parent: span } : undefined;
    const live = this.liveOutput?.forSlice(task.id, attempt);
    return new PaidModelCall(provider, money, this.config, this.spendMetrics, trace, live);
  }

  stepLedger(slice: LedgerSlice): RecordedStepLedger {
    return new RecordedStepLedger(this.recorder, slice);
  }
}
