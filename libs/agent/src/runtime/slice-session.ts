import { providerOf, type VigilConfig } from '@vigil/config';
import {
  startsChildren,
  type KindServices,
  type KindTool,
  type TaskKind,
  type ToolContext,
} from '@vigil/kinds';
import {
  RECENT_ACTIONS,
  type ActionRecord,
  FailureReason,
  InFlightCall,
  SliceContext,
  StepRecord,
  StepRecorder,
  TaskRecord,
  UnresolvedWrite,
} from '@vigil/tasks';
import type {
  GenerateRequest,
  GenerateResult,
  ModelProvider,
  ToolCall,
  ToolSpec,
} from '../models/model-provider';
import { readFinding, subtaskStepKey } from '@vigil/tasks';
import { estimateCostUsd, priceOf, worstCasePrice } from '../models/price-table';
import type { SpendMetrics } from '../models/spend-metrics';
import { BudgetExhaustedError, ModelSpend } from './model-spend';
import {
  BUILTIN_TOOLS,
  START_SUBTASK_TOOL,
  UNBOUNDED_BUILTIN_TOOLS,
  isBuiltinTool,
  parseBuiltin,
} from './builtin-tools';
import type { ChildTaskStarter } from './child-tasks';
import type { CallWatchdog, Watched } from './call-watchdog';
import { GlobalSpendLimitError } from './global-spend.gate';
import { buildPrompt, type PromptStyle } from './prompt-builder';
import type { HeldSliceContext } from './slice-context';
import { SliceConversation } from './slice-conversation';
import { ToolExecutor, ToolOutcome } from './tool-executor';
import { unresolvedWriteQuestion } from './unresolved-question';

export type SliceEnd =
  'next_slice' | 'verifying' | 'waiting_on_human' | 'waiting_on_children' | 'failed_turn' | 'paused';

export interface SliceResult {
  end: SliceEnd;
  reason?: FailureReason;
  /** Why a slice ended `paused`: a money limit the next model call would pass. */
  pauseReason?: 'budget' | 'global_spend_limit';
  detail?: string;
  claim?: string;
  question?: string;
  /** Why a slice ended `waiting_on_human` without the agent asking: a write nobody can settle but a person. */
  unresolvedWrite?: UnresolvedWrite;
}

export interface SliceSessionDeps {
  task: TaskRecord;
  kind: TaskKind;
  /** The task's tools: the kind's own and, for a kind that has them, the task's (`toolsFor`). */
  tools: KindTool[];
  /** What the task's tools are handed (config, the tool gateway). */
  services: KindServices;
  /** A tool's external system reported progress: proof of life, like a heartbeat. */
  onToolProgress?: () => void;
  attempt: number;
  slice: number;
  context: SliceContext;
  /** The task's context version `context` reflects. */
  contextVersion: number;
  /** This slice run's id, recorded with each of its steps (see load-slice.lua). */
  writer: string;
  /** Called after each recorded step, which is itself a heartbeat. */
  onStepRecorded?: () => void;
  provider: ModelProvider;
  signal: AbortSignal;
  config: VigilConfig;
  recorder: StepRecorder;
  executor: ToolExecutor;
  money: ModelSpend;
  /** Spend and tokens by provider and model, on the Worker's /metrics. */
  spendMetrics?: Pick<SpendMetrics, 'record'>;
  watchdog: Pick<CallWatchdog, 'watch' | 'release'>;
  /** A call overran its deadline: the slice must end its turn (the runner aborts it). */
  onHungCall: (call: InFlightCall) => void;
  /** True once the Worker is shutting down: the slice ends after its current step. */
  draining: () => boolean;
  /** The Worker's code version, recorded with every action. */
  codeVersion: string;
  /** Starts child missions (`start_subtask`); without it, a mission has no start_subtask tool. */
  children?: ChildTaskStarter;
  /** What the parent is told of its children's results (children-section), when it has any. */
  childrenSummary?: string;
  /** `bounded` unless a bench asks for the prompt as it was before (docs/models.md, "Prompts that stay bounded"). */
  promptStyle?: PromptStyle;
}

/** One tool step as it is recorded: what was called, how it went, what it cost. */
interface StepDone {
  tool: string;
  args: Record<string, unknown>;
  outcome: ToolOutcome;
  started: number;
  /** The model call's cost, charged with the first step it produced, and its reservation released. */
  costUsd?: number;
  reservedUsd?: number;
  /** The model's call, when there was one: its result goes back into the conversation. */
  call?: ToolCall;
  extra?: Pick<StepRecord, 'finding' | 'message'>;
}

/** The agent loop of one slice: model call → tool call → recorded step, at most SLICE_MAX_STEPS times. */
export class SliceSession {
  private readonly tools: Map<string, KindTool>;
  private readonly toolSpecs: ToolSpec[];
  private readonly conversation: SliceConversation;
  private lastError = '';
  private contextVersion: number;
  /** The action log's length after this session's last recorded step (0: none recorded). */
  private actionsRecorded = 0;
  /** The provider's prices, looked up once per slice. */
  private price?: ReturnType<typeof priceOf>;
  /** Steps this session has sent to be recorded: each one's number, so a repeated call is recorded once. */
  private stepsSent = 0;
  /** False once a step's version shows a change this session did not make (then nothing is kept). */
  private contextCurrent = true;
  /** The model or tool call in flight, for the heartbeat (null between calls). */
  private current: InFlightCall | null = null;
  /** A child was started in the model turn being played: the slice ends with the turn. */
  private startedChild = false;

  constructor(private readonly deps: SliceSessionDeps) {
    const { task, kind, context } = deps;
    this.tools = new Map(deps.tools.map((tool) => [tool.name, tool]));
    const style = deps.promptStyle ?? 'bounded';
    this.toolSpecs = [
      ...(style === 'bounded' ? BUILTIN_TOOLS : UNBOUNDED_BUILTIN_TOOLS),
      ...(this.offersSubtasks() ? [START_SUBTASK_TOOL] : []),
      ...deps.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      })),
    ];
    this.conversation = new SliceConversation(
      () => {
        const criteria = task.exitCriteria
          .map((c) => `- ${c.check}: expected ${JSON.stringify(c.expected)}`)
          .join('\n');
        return buildPrompt(task, kind, context, criteria, style, deps.childrenSummary);
      },
      { trim: style === 'bounded' },
    );
    this.contextVersion = deps.contextVersion;
  }

  async run(): Promise<SliceResult> {
    const { config, signal } = this.deps;
    for (let steps = 0; steps < config.sliceMaxSteps;) {
      signal.throwIfAborted();
      // A deploy: hand the task on as a normal next slice instead of starting another step.
      if (this.deps.draining()) return { end: 'next_slice' };
      const started = Date.now();
      let reply: ModelReply;
      try {
        reply = await this.generate();
        this.conversation.assistant(reply.text, reply.toolCalls);
      } catch (error) {
        signal.throwIfAborted();
        if (error instanceof BudgetExhaustedError)
          return { end: 'paused', pauseReason: 'budget', detail: error.message };
        if (error instanceof GlobalSpendLimitError)
          return { end: 'paused', pauseReason: 'global_spend_limit', detail: error.message };
        steps++;
        const charged = error instanceof ChargedModelError ? error.charge : {};
        const failed = await this.recordStep({
          tool: '(model)',
          args: {},
          outcome: failure(error instanceof ChargedModelError ? error.original : error),
          started,
          ...charged,
        });
        if (failed) return failed;
        continue;
      }
      let { costUsd = 0, reservedUsd = 0 } = reply;
      if (reply.toolCalls.length === 0) {
        steps++;
        const failed = await this.recordStep({
          tool: '(model)',
          args: {},
          outcome: failure('no tool call'),
          started,
          costUsd,
          reservedUsd,
        });
        this.conversation.user('Call exactly one of the tools to make progress.');
        if (failed) return failed;
        continue;
      }
      for (const call of reply.toolCalls) {
        const result = await this.step(call, started, costUsd, reservedUsd);
        costUsd = 0;
        reservedUsd = 0;
        steps++;
        if (result) return result;
        if (steps >= config.sliceMaxSteps) break;
      }
      // The parent waits from the end of the turn that started children (docs/missions.md, "Child missions").
      if (this.startedChild) return { end: 'waiting_on_children' };
    }
    return { end: 'next_slice' };
  }

  /** Children are started by a kind that declares it may (`capabilities.startsChildren`), and only where the runtime can create them. */
  private offersSubtasks(): boolean {
    return this.deps.children !== undefined && startsChildren(this.deps.kind);
  }

  /** The call in flight right now, as the heartbeat reports it. */
  get inFlight(): InFlightCall | null {
    return this.current;
  }

  /**
   * Puts one model or tool call under its deadline: the watchdog tells the runner when it is late,
   * which aborts the slice's signal, so the call (and with it the turn) ends as `hung_call`. The
   * caller awaits the call and then hands the entry to `endCall` (no closure per call: this runs
   * twice a step).
   */
  private beginCall(kind: InFlightCall['kind'], name: string, timeoutMs: number): Watched {
    const since = Date.now();
    const inFlight: InFlightCall = { kind, name, since, deadlineAt: since + timeoutMs };
    this.current = inFlight;
    return this.deps.watchdog.watch(inFlight, this.deps.onHungCall);
  }

  private endCall(watched: Watched): void {
    this.deps.watchdog.release(watched);
    if (this.current === watched.call) this.current = null;
  }

  /** The context as this slice leaves it, for the task's next slice if it runs in this process. */
  heldContext(): HeldSliceContext | undefined {
    if (!this.contextCurrent || this.actionsRecorded === 0) return undefined;
    return {
      attempt: this.deps.attempt,
      actions: this.actionsRecorded,
      version: this.contextVersion,
      writer: this.deps.writer,
      context: this.deps.context,
    };
  }

  /**
   * One model call under its deadline, paid for before it is made (docs/models.md,
   * "Money"): its worst case is reserved against the task's budget and the global cap, the call
   * lowers its max_tokens to fit what is left, and the reservation is settled to the real cost
   * with the step. A call that cannot be paid for ends the slice paused; a free provider (the
   * scripted agent) reserves nothing and costs no round trip.
   */
  private async generate(): Promise<ModelReply> {
    const { provider, signal } = this.deps;
    const request = this.conversation.request(this.toolSpecs, signal);
    const price = (this.price ??= priceOf(provider.modelId));
    if (price.input === 0 && price.output === 0) {
      // A free driver (the scripted agent): nothing to reserve, settle or count as spend.
      return this.callModel(request);
    }
    // Every prompt token at the dearest input rate: a cache write costs more than plain input.
    const grant = await this.deps.money.reserve(request, worstCasePrice(price));
    request.maxTokens = grant.maxTokens;
    let reply: Awaited<ReturnType<ModelProvider['generate']>>;
    try {
      reply = await this.callModel(request);
    } catch (error) {
      // A call that failed or was aborted may still be billed: it is charged its whole reservation.
      await this.deps.money.settleGlobal(grant, grant.grantedUsd);
      throw new ChargedModelError(error, { costUsd: grant.grantedUsd, reservedUsd: grant.grantedUsd });
    }
    const costUsd = estimateCostUsd(provider, reply.usage);
    this.deps.spendMetrics?.record(this.providerName(), provider.modelId, reply.usage, costUsd);
    await this.deps.money.settleGlobal(grant, costUsd);
    return {
      text: reply.text,
      toolCalls: reply.toolCalls,
      usage: reply.usage,
      costUsd,
      reservedUsd: grant.grantedUsd,
    };
  }

  /** Who runs this attempt (`anthropic`, `google`, `scripted`): the record's `provider`. */
  private providerName(): string {
    return providerOf(this.deps.provider.name, this.deps.config);
  }

  private async callModel(request: GenerateRequest): Promise<GenerateResult> {
    const { provider, config } = this.deps;
    const watched = this.beginCall('model', provider.name, config.modelCallTimeoutMs);
    try {
      return await provider.generate(request);
    } finally {
      this.endCall(watched);
    }
  }

  /** One tool call; returns a result when the slice must end. */
  private async step(
    call: ToolCall,
    started: number,
    costUsd: number,
    reservedUsd: number,
  ): Promise<SliceResult | undefined> {
    const args = call.args ?? {};
    if (isBuiltinTool(call.name)) return this.builtin(call, args, started, costUsd, reservedUsd);
    const tool = this.tools.get(call.name);
    if (!tool) {
      const outcome = failure(`unknown tool ${call.name}`);
      return this.recordStep({ tool: call.name, args, outcome, started, costUsd, reservedUsd, call });
    }
    const { task, attempt, context, signal, config } = this.deps;
    const timeoutMs = tool.timeoutMs ?? config.toolCallTimeoutMs;
    const toolContext: ToolContext = {
      taskId: task.id,
      attempt,
      input: task.input,
      outputs: context.outputs,
      signal,
      services: this.deps.services,
    };
    if (this.deps.onToolProgress) toolContext.onProgress = this.deps.onToolProgress;
    const watched = this.beginCall('tool', call.name, timeoutMs);
    let outcome: ToolOutcome;
    try {
      outcome = await this.deps.executor.run(tool, args, toolContext);
    } finally {
      this.endCall(watched);
    }
    // A tool that gave up because the deadline aborted it returns an error: the turn ends on the abort.
    signal.throwIfAborted();
    const ended = await this.recordStep({
      tool: call.name,
      args,
      outcome,
      started,
      costUsd,
      reservedUsd,
      call,
    });
    // Never repeated blindly (docs/ARCHITECTURE.md, invariant 4): the task waits for a person.
    if (outcome.unresolved)
      return {
        end: 'waiting_on_human',
        question: unresolvedWriteQuestion(outcome.unresolved),
        unresolvedWrite: outcome.unresolved,
      };
    return ended;
  }

  private async builtin(
    call: ToolCall,
    args: Record<string, unknown>,
    started: number,
    costUsd: number,
    reservedUsd: number,
  ): Promise<SliceResult | undefined> {
    const step = { tool: call.name, args, started, costUsd, reservedUsd, call };
    if (!isBuiltinTool(call.name)) throw new Error(`${call.name} is not a built-in`);
    let request: ReturnType<typeof parseBuiltin>;
    try {
      request = parseBuiltin(call.name, args, this.deps.attempt);
    } catch (error) {
      return this.recordStep({ ...step, outcome: failure(error) });
    }
    if (request.tool === 'start_subtask') return this.startSubtask(step, request.subtask);
    if (request.tool === 'read_output') {
      // A read of the slice context's saved outputs, recorded like every other call.
      const { outputs } = this.deps.context;
      const outcome: ToolOutcome = outputs.has(request.key)
        ? { key: null, ok: true, result: { key: request.key, output: outputs.get(request.key) } }
        : failure(`no saved output under ${request.key}: read_output takes a completed step's key`);
      return this.recordStep({ ...step, outcome });
    }
    const extra: StepDone['extra'] = {};
    if (request.tool === 'record_finding') extra.finding = request.finding;
    if (request.tool === 'message_user') extra.message = { kind: 'agent', text: request.text };
    const failed = await this.recordStep({
      ...step,
      outcome: { key: null, ok: true, result: { ok: true } },
      extra,
    });
    if (failed) return failed;
    if (request.tool === 'finish_task') return { end: 'verifying', claim: request.summary };
    if (request.tool === 'request_human_input')
      return { end: 'waiting_on_human', question: request.question };
    return undefined;
  }

  /**
   * A child mission, keyed by its arguments: a replayed call (a retried turn) makes no second child,
   * and a refusal (tools not the parent's, a bad criterion) is the call's tool error.
   */
  private async startSubtask(
    step: Omit<StepDone, 'outcome'>,
    subtask: Parameters<ChildTaskStarter['execute']>[1],
  ): Promise<SliceResult | undefined> {
    const children = this.offersSubtasks() ? this.deps.children : undefined;
    if (!children) return this.recordStep({ ...step, outcome: failure('start_subtask is a mission’s tool') });
    const key = subtaskStepKey(step.args);
    let outcome: ToolOutcome;
    try {
      const started = await children.execute(this.deps.task, subtask, key);
      outcome = { key, ok: true, result: { taskId: started.childId, status: started.placement } };
    } catch (error) {
      outcome = failure(error instanceof Error ? error.message : error);
    }
    const ended = await this.recordStep({ ...step, outcome });
    if (outcome.ok) this.startedChild = true;
    return ended;
  }

  private async recordStep(done: StepDone): Promise<SliceResult | undefined> {
    const { task, attempt, slice, recorder, context, config } = this.deps;
    const { tool, args, outcome, started, costUsd = 0, reservedUsd = 0, call, extra = {} } = done;
    // Built field by field, without spreads: this runs on every step
    // (docs/ARCHITECTURE.md, "Throughput: what one step costs").
    const action = { attempt, slice, tool, key: outcome.key, args } as ActionRecord;
    if (outcome.ok) action.result = outcome.result;
    else action.error = outcome.error;
    action.startedAt = started;
    action.durationMs = Date.now() - started;
    if (outcome.deduplicated) action.deduplicated = true;
    action.codeVersion = this.deps.codeVersion;
    const outputJson =
      outcome.ok && outcome.key && outcome.result !== undefined ? JSON.stringify(outcome.result) : undefined;
    const recorded = await recorder.record({
      taskId: task.id,
      attempt,
      action,
      succeeded: outcome.ok,
      outputJson,
      journal: outcome.journal,
      currentStep: outcome.key ? `${tool} ${outcome.key}` : tool,
      spentUsd: costUsd,
      releaseUsd: reservedUsd,
      writer: this.deps.writer,
      writerSeq: ++this.stepsSent,
      ...extra,
    });
    this.deps.onStepRecorded?.();
    // The context is updated as Redis now holds it (JSON round trip included), so a next slice that
    // reuses it holds the same steps, outputs and findings as one that reads it from Redis.
    if (recorded.contextVersion === this.contextVersion + 1) this.contextVersion++;
    else this.contextCurrent = false;
    this.actionsRecorded = recorded.step;
    // Numbered as record-step.lua numbered it, so a held context renders the same prompt as one read
    // back (load-slice.lua returns the log's last entries; the prompt shows them as JSON either way).
    const recent = (context.recentActions ??= []);
    action.step = recorded.step;
    recent.push(action);
    if (recent.length > RECENT_ACTIONS) recent.splice(0, recent.length - RECENT_ACTIONS);
    if (outcome.ok && outcome.key) {
      context.doneSteps.add(outcome.key);
      if (outputJson !== undefined) context.outputs.set(outcome.key, JSON.parse(outputJson));
    }
    if (extra.finding !== undefined)
      context.findings.push(readFinding(JSON.parse(JSON.stringify(extra.finding))));
    if (call) {
      const payload = outcome.ok
        ? (outcome.shown ?? outcome.result ?? { ok: true })
        : { error: outcome.error };
      this.conversation.toolResult(call, outcome.ok, payload, outcome.ok ? outcome.key : null);
    }
    if (!outcome.ok) this.lastError = outcome.error ?? 'error';
    if (recorded.consecutiveErrors >= config.maxConsecutiveErrors) {
      return {
        end: 'failed_turn',
        reason: 'tool_error',
        detail: `${recorded.consecutiveErrors} consecutive errors, last: ${this.lastError.slice(0, 300)}`,
      };
    }
    return undefined;
  }
}

/** The model's answer, with what it cost when it cost anything (a free driver's has no cost fields). */
interface ModelReply extends GenerateResult {
  costUsd?: number;
  reservedUsd?: number;
}

/** A model call that failed after its reservation: the step records the charge. */
class ChargedModelError extends Error {
  constructor(
    readonly original: unknown,
    readonly charge: { costUsd: number; reservedUsd: number },
  ) {
    super(String(original));
  }
}

function failure(error: unknown): ToolOutcome {
  return { key: null, ok: false, error: String(error) };
}
