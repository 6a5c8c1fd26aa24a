import { startsChildren, type KindTool, type ToolContext } from '@vigil/kinds';
import { StoreFullError, type InFlightCall } from '@vigil/tasks';
import { NOOP_TRACING, type TraceSpan, type Tracing } from '@vigil/telemetry';
import type { ToolCall, ToolSpec } from '../models/model-provider';
import {
  BUILTIN_TOOLS,
  START_SUBTASK_TOOL,
  UNBOUNDED_BUILTIN_TOOLS,
  isBuiltinTool,
  parseBuiltin,
} from './builtin-tools';
import { builtinAnswer, failure, startedSubtask } from './builtin-answers';
import { endToolCallSpan, startToolCallSpan } from './call-spans';
import type { ChildTaskStarter } from './child-tasks';
import { CallsInFlight } from './calls-in-flight';
import { LoopGuard, withLoopWarning } from './loop-guard';
import { ChargedModelError, moneyPauseOf, type ModelReply, type PaidModelCall } from './paid-model-call';
import type { HeldSliceContext } from './slice-context';
import { SliceConversation } from './slice-conversation';
import { sliceOpening } from './slice-opening';
import type {
  SessionServices,
  SliceData,
  SessionLoopGuard,
  SliceHooks,
  SliceResult,
  SliceSessionDeps,
} from './slice-session.types';
import type { StepDone, StepLedger } from './step-ledger';
import type { ToolOutcome } from './tool-executor';
import { unresolvedWriteQuestion } from './unresolved-question';

export type * from './slice-session.types';

/** The agent loop of one slice: model call → tool call → recorded step, at most SLICE_MAX_STEPS times. */
export class SliceSession {
  private readonly slice: SliceData;
  private readonly ledger: StepLedger;
  private readonly model: PaidModelCall;
  private readonly hooks: SliceHooks;
  private readonly services: SessionServices;
  private readonly tools: Map<string, KindTool>;
  private readonly toolSpecs: ToolSpec[];
  private readonly conversation: SliceConversation;
  private readonly calls: CallsInFlight;
  private readonly loops: SessionLoopGuard;
  private lastError = '';
  /** A child was started in the model turn being played: the slice ends with the turn. */
  private startedChild = false;
  private readonly tracing: Tracing;
  /** The span of the tool call being played, ended when its step is recorded. */
  private toolSpan?: { span: TraceSpan; effect: 'read' | 'write' | 'builtin' };

  constructor({ slice, ledger, model, hooks, services, loops }: SliceSessionDeps) {
    this.loops = loops ?? new LoopGuard(services.config);
    this.slice = slice;
    this.ledger = ledger;
    this.model = model;
    this.hooks = hooks;
    this.services = services;
    this.tools = new Map(slice.tools.map((tool) => [tool.name, tool]));
    const style = slice.promptStyle ?? 'bounded';
    this.toolSpecs = [
      ...(style === 'bounded' ? BUILTIN_TOOLS : UNBOUNDED_BUILTIN_TOOLS),
      ...(this.offersSubtasks() ? [START_SUBTASK_TOOL] : []),
      ...slice.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      })),
    ];
    this.conversation = new SliceConversation(() => sliceOpening(slice, style), {
      trim: style === 'bounded',
      maxImages: services.config.visionMaxImages,
      steering: slice.steering,
    });
    this.calls = new CallsInFlight(services.watchdog, hooks.onHungCall);
    this.tracing = services.tracing ?? NOOP_TRACING;
  }

  async run(): Promise<SliceResult> {
    const { config } = this.services;
    const { signal } = this.slice;
    for (let steps = 0; steps < config.sliceMaxSteps;) {
      signal.throwIfAborted();
      // A deploy: hand the task on as a normal next slice instead of starting another step.
      if (this.hooks.draining()) return { end: 'next_slice' };
      const looped = this.loops.beforeModelCall();
      if (looped) return looped;
      const started = Date.now();
      let reply: ModelReply;
      try {
        reply = await this.model.generate(this.conversation.request(this.toolSpecs, signal), this.calls);
        this.conversation.assistant(reply.text, reply.toolCalls);
      } catch (error) {
        signal.throwIfAborted();
        // Its reservation could not be written: the store is full, and no step can be recorded either.
        if (error instanceof StoreFullError) throw error;
        const paused = moneyPauseOf(error);
        if (paused) return paused;
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
    return this.services.children !== undefined && startsChildren(this.slice.kind);
  }

  /** The call in flight right now, as the heartbeat reports it. */
  get inFlight(): InFlightCall | null {
    return this.calls.current;
  }

  /** The context as this slice leaves it, for the task's next slice if it runs in this process. */
  heldContext(): HeldSliceContext | undefined {
    return this.ledger.heldContext();
  }

  /** One tool call; returns a result when the slice must end. */
  private async step(
    call: ToolCall,
    started: number,
    costUsd: number,
    reservedUsd: number,
  ): Promise<SliceResult | undefined> {
    const args = call.args ?? {};
    const tool = this.tools.get(call.name);
    if (this.tracing.enabled && this.slice.span) {
      const effect = isBuiltinTool(call.name) ? 'builtin' : (tool?.effect ?? 'read');
      this.toolSpan = { span: startToolCallSpan(this.tracing, this.slice.span, call, effect), effect };
    }
    if (isBuiltinTool(call.name)) return this.builtin(call, args, started, costUsd, reservedUsd);
    if (!tool) {
      const outcome = failure(`unknown tool ${call.name}`);
      return this.recordStep({ tool: call.name, args, outcome, started, costUsd, reservedUsd, call });
    }
    const { task, attempt, context, signal } = this.slice;
    const timeoutMs = tool.timeoutMs ?? this.services.config.toolCallTimeoutMs;
    const toolContext: ToolContext = {
      taskId: task.id,
      attempt,
      input: task.input,
      outputs: context.outputs,
      signal,
      services: this.slice.kindServices,
    };
    if (this.hooks.onToolProgress) toolContext.onProgress = this.hooks.onToolProgress;
    // Outgoing HTTP tools, MCP over HTTP: the tool's server joins the task's trace.
    const traceparent = this.toolSpan?.span.traceparent();
    if (traceparent) toolContext.traceparent = traceparent;
    const watched = this.calls.begin('tool', call.name, timeoutMs);
    let outcome: ToolOutcome;
    try {
      outcome = await this.services.executor.run(tool, args, toolContext);
      // Storing a large output is part of the call, under its deadline.
      // So is keeping its images and files (artifacts): none is recorded before it is stored.
      if (this.services.outputs)
        outcome = await this.services.outputs.keep(outcome, { task, tool: tool.taskName ?? tool.name });
    } finally {
      this.calls.end(watched);
    }
    outcome = this.slice.statefulServers?.withNotice(call.name, args, outcome) ?? outcome;
    // A tool that gave up because the deadline aborted it returns an error: the attempt ends on the abort.
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
      request = parseBuiltin(call.name, args, this.slice.attempt);
    } catch (error) {
      return this.recordStep({ ...step, outcome: failure(error) });
    }
    if (request.tool === 'start_subtask') return this.startSubtask(step, request.subtask);
    const answer = await builtinAnswer(request, this.slice, this.services);
    if (answer) return this.recordStep({ ...step, outcome: answer });
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

  private async startSubtask(
    step: Omit<StepDone, 'outcome'>,
    subtask: Parameters<ChildTaskStarter['execute']>[1],
  ): Promise<SliceResult | undefined> {
    const children = this.offersSubtasks() ? this.services.children : undefined;
    if (!children) return this.recordStep({ ...step, outcome: failure('start_subtask is a mission’s tool') });
    const outcome = await startedSubtask(children, this.slice.task, subtask, step.args);
    const ended = await this.recordStep({ ...step, outcome });
    if (outcome.ok) this.startedChild = true;
    return ended;
  }

  /** Records the step in the ledger, hands its result back to the model, and ends the slice on too many errors or a loop. */
  private async recordStep(done: StepDone): Promise<SliceResult | undefined> {
    const loop = this.loops.observe(done, this.slice.context);
    const consecutiveErrors = await this.ledger.record(done);
    this.hooks.onStepRecorded?.();
    const { outcome, call } = done;
    if (this.toolSpan && call) {
      endToolCallSpan(this.tracing, this.toolSpan.span, outcome, this.toolSpan.effect);
      this.toolSpan = undefined;
    }
    if (call) {
      const payload = outcome.ok
        ? (outcome.shown ?? outcome.result ?? { ok: true })
        : { error: outcome.error };
      const shown = withLoopWarning(payload, loop.warning);
      this.conversation.toolResult(call, outcome.ok, shown, outcome.ok ? outcome.key : null, outcome.images);
    }
    if (!outcome.ok) this.lastError = outcome.error ?? 'error';
    if (consecutiveErrors >= this.services.config.maxConsecutiveErrors) {
      return {
        end: 'failed_attempt',
        reason: 'tool_error',
        detail: `${consecutiveErrors} consecutive errors, last: ${this.lastError.slice(0, 300)}`,
      };
    }
    return loop.end;
  }
}
