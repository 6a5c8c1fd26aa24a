import type { VigilConfig } from '@vigil/config';
import type { ActionRecord, KindTool, TaskKind } from '@vigil/kinds';
import type { FailureReason, TaskRecord } from '@vigil/tasks';
import type {
  ChatMessage,
  ModelProvider,
  ScriptedSessionView,
  ToolCall,
  ToolSpec,
} from '../models/model-provider';
import { estimateCostUsd, worstCaseCallCostUsd } from '../models/price-table';
import { MAX_OUTPUT_TOKENS } from '../models/provider-support';
import { BUILTIN_TOOLS, isBuiltinTool, stringArg } from './builtin-tools';
import { GlobalSpendGate, GlobalSpendLimitError } from './global-spend.gate';
import { buildPrompt } from './prompt-builder';
import { StepRecord, StepRecorder } from './step-recorder';
import type { HeldContext, SliceContext } from './slice-context';
import { ToolExecutor, ToolOutcome } from './tool-executor';

export type SliceEnd = 'next_slice' | 'verifying' | 'waiting_on_human' | 'failed_turn';

export interface SliceResult {
  end: SliceEnd;
  reason?: FailureReason;
  detail?: string;
  claim?: string;
  question?: string;
}

export interface SliceSessionDeps {
  task: TaskRecord;
  kind: TaskKind;
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
  spend: GlobalSpendGate;
  scripted: (issued: ReadonlySet<string>, done: ReadonlySet<string>) => ScriptedSessionView;
}

/** The agent loop of one slice: model call → tool call → recorded step, at most SLICE_MAX_STEPS times. */
export class SliceSession {
  private readonly tools: Map<string, KindTool>;
  private readonly toolSpecs: ToolSpec[];
  private readonly issued = new Set<string>();
  private readonly messages: ChatMessage[];
  private readonly system: string;
  private readonly scriptedView: ScriptedSessionView | undefined;
  private spentUsd: number;
  private lastError = '';
  private contextVersion: number;
  /** The action log's length after this session's last recorded step (0: none recorded). */
  private actionsRecorded = 0;
  /** False once a step's version shows a change this session did not make (then nothing is kept). */
  private contextCurrent = true;

  constructor(private readonly deps: SliceSessionDeps) {
    const { task, kind, context } = deps;
    this.tools = new Map(kind.tools.map((tool) => [tool.name, tool]));
    this.toolSpecs = [
      ...BUILTIN_TOOLS,
      ...kind.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      })),
    ];
    const criteria = task.exitCriteria
      .map((c) => `- ${c.check}: expected ${JSON.stringify(c.expected)}`)
      .join('\n');
    // The scripted agent drives from the recorded log, not from text: no prompt is built for it.
    const prompt = this.isScripted()
      ? { system: '', messages: [] }
      : buildPrompt(task, kind, context, criteria);
    this.system = prompt.system;
    this.messages = prompt.messages;
    this.spentUsd = task.spentUsd;
    this.contextVersion = deps.contextVersion;
    this.scriptedView = this.isScripted() ? deps.scripted(this.issued, context.doneSteps) : undefined;
  }

  async run(): Promise<SliceResult> {
    const { config, signal } = this.deps;
    for (let steps = 0; steps < config.sliceMaxSteps;) {
      signal.throwIfAborted();
      if (this.spentUsd >= this.deps.task.budgetUsd && this.deps.task.budgetUsd > 0 && !this.isScripted()) {
        return {
          end: 'failed_turn',
          reason: 'limit',
          detail: `task budget of $${this.deps.task.budgetUsd} reached`,
        };
      }
      const started = Date.now();
      let calls: ToolCall[];
      let costUsd = 0;
      try {
        const reply = await this.generate();
        calls = reply.toolCalls;
        costUsd = reply.costUsd;
        this.remember({ role: 'assistant', content: reply.text, toolCalls: calls });
      } catch (error) {
        signal.throwIfAborted();
        if (error instanceof GlobalSpendLimitError)
          return { end: 'failed_turn', reason: 'limit', detail: error.message };
        const failed = await this.recordStep(
          '(model)',
          {},
          { key: null, ok: false, error: String(error) },
          started,
        );
        steps++;
        if (failed) return failed;
        continue;
      }
      if (calls.length === 0) {
        const failed = await this.recordStep(
          '(model)',
          {},
          { key: null, ok: false, error: 'no tool call' },
          started,
          costUsd,
        );
        this.remember({ role: 'user', content: 'Call exactly one of the tools to make progress.' });
        steps++;
        if (failed) return failed;
        continue;
      }
      for (const call of calls) {
        const result = await this.step(call, started, costUsd);
        costUsd = 0;
        steps++;
        if (result) return result;
        if (steps >= config.sliceMaxSteps) break;
      }
    }
    return { end: 'next_slice' };
  }

  /** The context as this slice leaves it, for the task's next slice if it runs in this process. */
  heldContext(): HeldContext | undefined {
    if (!this.contextCurrent || this.actionsRecorded === 0) return undefined;
    return {
      attempt: this.deps.attempt,
      actions: this.actionsRecorded,
      version: this.contextVersion,
      writer: this.deps.writer,
      context: this.deps.context,
    };
  }

  private remember(message: ChatMessage): void {
    if (!this.isScripted()) this.messages.push(message);
  }

  private isScripted(): boolean {
    return this.deps.provider.readsPrompt === false;
  }

  private async generate(): Promise<{ text: string; toolCalls: ToolCall[]; costUsd: number }> {
    const { provider, signal, spend } = this.deps;
    const reserved = this.isScripted() ? 0 : worstCaseCallCostUsd(provider.name, 50_000, MAX_OUTPUT_TOKENS);
    if (reserved > 0) await spend.reserve(reserved);
    const reply = await provider.generate({
      system: this.system,
      messages: this.messages,
      tools: this.toolSpecs,
      signal,
      session: this.scriptedView,
    });
    const costUsd = estimateCostUsd(this.isScripted() ? 'scripted' : provider.name, reply.usage);
    // Only an answered call is settled to its real cost; a call that failed or was aborted may
    // still be billed, so its reservation stays counted against the cap.
    if (reserved > 0) await spend.settle(reserved, costUsd);
    return { text: reply.text, toolCalls: reply.toolCalls, costUsd };
  }

  /** One tool call; returns a result when the slice must end. */
  private async step(call: ToolCall, started: number, costUsd: number): Promise<SliceResult | undefined> {
    const args = call.args ?? {};
    if (isBuiltinTool(call.name)) return this.builtin(call, args, started, costUsd);
    const tool = this.tools.get(call.name);
    if (!tool) {
      return this.recordStep(
        call.name,
        args,
        { key: null, ok: false, error: `unknown tool ${call.name}` },
        started,
        costUsd,
        call,
      );
    }
    const { task, attempt, context, signal, config } = this.deps;
    const outcome = await this.deps.executor.run(tool, args, {
      taskId: task.id,
      attempt,
      input: task.input,
      outputs: context.outputs,
      signal,
      services: { config },
    });
    if (outcome.key) this.issued.add(outcome.key);
    return this.recordStep(call.name, args, outcome, started, costUsd, call);
  }

  private async builtin(
    call: ToolCall,
    args: Record<string, unknown>,
    started: number,
    costUsd: number,
  ): Promise<SliceResult | undefined> {
    let text: string;
    try {
      text = stringArg(
        args,
        call.name === 'request_human_input' ? 'question' : call.name === 'finish_task' ? 'summary' : 'text',
      );
    } catch (error) {
      return this.recordStep(
        call.name,
        args,
        { key: null, ok: false, error: String(error) },
        started,
        costUsd,
        call,
      );
    }
    const extra: Partial<StepRecord> = {};
    if (call.name === 'record_finding') extra.finding = { text, attempt: this.deps.attempt, at: Date.now() };
    if (call.name === 'message_user') extra.message = { kind: 'agent', text };
    const failed = await this.recordStep(
      call.name,
      args,
      { key: null, ok: true, result: { ok: true } },
      started,
      costUsd,
      call,
      extra,
    );
    if (failed) return failed;
    if (call.name === 'finish_task') return { end: 'verifying', claim: text };
    if (call.name === 'request_human_input') return { end: 'waiting_on_human', question: text };
    return undefined;
  }

  private async recordStep(
    tool: string,
    args: Record<string, unknown>,
    outcome: ToolOutcome,
    started: number,
    costUsd = 0,
    call?: ToolCall,
    extra: Partial<StepRecord> = {},
  ): Promise<SliceResult | undefined> {
    const { task, attempt, slice, recorder, context, config } = this.deps;
    const action: Omit<ActionRecord, 'step'> = {
      attempt,
      slice,
      tool,
      key: outcome.key,
      args,
      ...(outcome.ok ? { result: outcome.result } : { error: outcome.error }),
      startedAt: started,
      durationMs: Date.now() - started,
      ...(outcome.deduplicated ? { deduplicated: true } : {}),
    };
    const currentStep = outcome.key ? `${tool} ${outcome.key}` : tool;
    const outputJson =
      outcome.ok && outcome.key && outcome.result !== undefined ? JSON.stringify(outcome.result) : undefined;
    const recorded = await recorder.record({
      taskId: task.id,
      attempt,
      action,
      succeeded: outcome.ok,
      outputJson,
      journal: outcome.journal,
      currentStep,
      spentUsd: costUsd,
      writer: this.deps.writer,
      ...extra,
    });
    this.spentUsd += costUsd;
    this.deps.onStepRecorded?.();
    // The context is updated as Redis now holds it (JSON round trip included), so a next slice that
    // reuses it holds the same steps, outputs and findings as one that reads it from Redis.
    if (recorded.contextVersion === this.contextVersion + 1) this.contextVersion++;
    else this.contextCurrent = false;
    this.actionsRecorded = recorded.step;
    if (outcome.ok && outcome.key) {
      context.doneSteps.add(outcome.key);
      if (outputJson !== undefined) context.outputs.set(outcome.key, JSON.parse(outputJson));
    }
    if (extra.finding !== undefined) context.findings.push(JSON.parse(JSON.stringify(extra.finding)));
    if (call && !this.isScripted()) {
      this.remember({
        role: 'tool',
        toolCallId: call.id,
        name: call.name,
        content: JSON.stringify(
          outcome.ok ? (outcome.result ?? { ok: true }) : { error: outcome.error },
        ).slice(0, 8000),
        isError: !outcome.ok,
      });
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
