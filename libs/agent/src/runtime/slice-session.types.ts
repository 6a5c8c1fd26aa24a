import type { KindServices, KindTool, TaskKind } from '@vigil/kinds';
import type {
  ArtifactList,
  FailureReason,
  InFlightCall,
  SliceContext,
  TaskRecord,
  UnresolvedWrite,
} from '@vigil/tasks';
import type { TraceSpan, Tracing } from '@vigil/telemetry';
import type { CallWatchdog } from './call-watchdog';
import type { ChildTaskStarter } from './child-tasks';
import type { OutputClaimCheck } from './output-claim-check';
import type { PaidModelCall } from './paid-model-call';
import type { PromptStyle } from './prompt-builder';
import type { SliceSettings } from './slice-settings';
import type { SliceSteering } from './slice-steering';
import type { StatefulServers } from './stateful-servers';
import type { StepDone, StepLedger } from './step-ledger';
import type { ToolExecutor } from './tool-executor';

export type SliceEnd =
  'next_slice' | 'verifying' | 'waiting_on_human' | 'waiting_on_children' | 'failed_attempt' | 'paused';

export interface SliceResult {
  end: SliceEnd;
  reason?: FailureReason;
  /** Why a slice ended `paused`: a money limit the next model call would pass. */
  pauseReason?: 'budget' | 'global_spend_limit' | 'tenant_daily_budget';
  detail?: string;
  claim?: string;
  question?: string;
  /** Why a slice ended `waiting_on_human` without the agent asking: a write nobody can settle but a person. */
  unresolvedWrite?: UnresolvedWrite;
}

/** What one slice runs: the task at its attempt and slice, its kind, tools and context. */
export interface SliceData {
  task: TaskRecord;
  kind: TaskKind;
  /** The task's tools: the kind's own and, for a kind that has them, the task's (`toolsFor`). */
  tools: KindTool[];
  /** What the task's tools are handed (config, the tool gateway). */
  kindServices: KindServices;
  attempt: number;
  slice: number;
  context: SliceContext;
  signal: AbortSignal;
  /** What the parent is told of its children's results (children-section), when it has any. */
  childrenSummary?: string;
  /** The task's stateful tool servers, when it uses any (docs/missions.md, "Stateful tool servers"). */
  statefulServers?: StatefulServers;
  /** The slice's span: each tool call is a span under it (docs/observability.md). */
  span?: TraceSpan;
  /** The instructions given while the task ran (docs/api.md, "Steering"): in the opening, and new ones as they come. */
  steering?: SliceSteering;
  /** `bounded` unless a bench asks for the prompt as it was before (docs/models.md, "Prompts that stay bounded"). */
  promptStyle?: PromptStyle;
}

/** How a slice tells its runner what happens, and asks whether it should go on. */
export interface SliceHooks {
  /** Called after each recorded step, which is itself a heartbeat. */
  onStepRecorded?: () => void;
  /** A tool's external system reported progress: proof of life, like a heartbeat. */
  onToolProgress?: () => void;
  /** A call overran its deadline: the slice must end its attempt (the runner aborts it). */
  onHungCall: (call: InFlightCall) => void;
  /** True once the Worker is shutting down: the slice ends after its current step. */
  draining: () => boolean;
}

/** What the agent loop uses of the Worker's services (SliceServices). */
export interface SessionServices {
  config: Pick<
    SliceSettings,
    'sliceMaxSteps' | 'toolCallTimeoutMs' | 'maxConsecutiveErrors' | 'loopRepeatLimit' | 'loopIdleCalls'
  > &
    Partial<Pick<SliceSettings, 'visionMaxImages'>>;
  executor: Pick<ToolExecutor, 'run'>;
  watchdog: Pick<CallWatchdog, 'watch' | 'release'>;
  /** Starts child missions (`start_subtask`); without it, a mission has no start_subtask tool. */
  children?: ChildTaskStarter;
  /**
   * Stores a tool's images and files as artifacts, and outputs too large for Redis, and records
   * references (the Worker always has it).
   */
  outputs?: Pick<OutputClaimCheck, 'keep' | 'whole' | 'images'>;
  /** The task's artifact list, which a finding's `artifacts` must be in (the Worker always has it). */
  artifactList?: Pick<ArtifactList, 'live'>;
  /** Traces; absent, none. */
  tracing?: Tracing;
}

export interface SliceSessionDeps {
  slice: SliceData;
  ledger: StepLedger;
  model: PaidModelCall;
  hooks: SliceHooks;
  services: SessionServices;
  /** The attempt's loop guard, counting on from earlier slices; absent, one that starts from nothing. */
  loops?: SessionLoopGuard;
}

/** What the agent loop asks of the attempt's loop guard (LoopGuard, loop-guard.ts). */
export interface SessionLoopGuard {
  /** Before each model call: the end of the attempt once too many calls made no progress. */
  beforeModelCall(): SliceResult | undefined;
  /** A step about to be recorded: the warning to show with its result, or the end of the attempt. */
  observe(done: StepDone, context: SliceContext): { warning?: string; end?: SliceResult };
}
