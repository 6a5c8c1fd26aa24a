import type { VigilConfig } from '@vigil/config';
import type { KindTool, TaskKind } from '@vigil/kinds';
import type {
  ActionRecord,
  FailureReason,
  SliceContext,
  StepRecord,
  StepRecorder,
  TaskRecord,
} from '@vigil/tasks';
import type { ModelProvider, ToolCall, ToolSpec } from '../models/model-provider';
import { estimateCostUsd, worstCaseCallCostUsd } from '../models/price-table';
import { MAX_OUTPUT_TOKENS } from '../models/provider-support';
import { BUILTIN_TOOLS, isBuiltinTool, stringArg } from './builtin-tools';
import { GlobalSpendGate, GlobalSpendLimitError } from './global-spend.gate';
import { buildPrompt } from './prompt-builder';
import type { HeldSliceContext } from './slice-context';
import { SliceConversation } from './slice-conversation';
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
}

/** One tool step as it is recorded: what was called, how it went, what it cost. */
interface StepDone {
  tool: string;
  args: Record<string, unknown>;
  outcome: ToolOutcome;
  started: number;
  /** The model call's cost, charged with the first step it produced. */
  costUsd?: number;
  /** The model's call, when there was one: its result goes back into the conversation. */
  call?: ToolCall;
  extra?: Pick<StepRecord, 'finding' | 'message'>;
}

/** Worst-case prompt size reserved before a model call. */
const RESERVED_INPUT_TOKENS = 50_000;

/** The agent loop of one slice: model call → tool call → recorded step, at most SLICE_MAX_STEPS times. */
export class SliceSession {
  private readonly tools: Map<string, KindTool>;
  private readonly toolSpecs: ToolSpec[];
  private readonly conversation: SliceConversation;
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
    this.conversation = new SliceConversation(() => {
      const criteria = task.exitCriteria
        .map((c) => `- ${c.check}: expected ${JSON.stringify(c.expected)}`)
        .join('\n');
      return buildPrompt(task, kind, context, criteria);
    });
    this.spentUsd = task.spentUsd;
    this.contextVersion = deps.contextVersion;
  }

  async run(): Promise<SliceResult> {
    const { config, signal, task } = this.deps;
    for (let steps = 0; steps < config.sliceMaxSteps;) {
      signal.throwIfAborted();
      if (task.budgetUsd > 0 && this.spentUsd >= task.budgetUsd) {
        return { end: 'failed_turn', reason: 'limit', detail: `task budget of $${task.budgetUsd} reached` };
      }
      const started = Date.now();
      let calls: ToolCall[];
      let costUsd = 0;
      try {
        const reply = await this.generate();
        calls = reply.toolCalls;
        costUsd = reply.costUsd;
        this.conversation.assistant(reply.text, calls);
      } catch (error) {
        signal.throwIfAborted();
        if (error instanceof GlobalSpendLimitError)
          return { end: 'failed_turn', reason: 'limit', detail: error.message };
        steps++;
        const failed = await this.recordStep({ tool: '(model)', args: {}, outcome: failure(error), started });
        if (failed) return failed;
        continue;
      }
      if (calls.length === 0) {
        steps++;
        const failed = await this.recordStep({
          tool: '(model)',
          args: {},
          outcome: failure('no tool call'),
          started,
          costUsd,
        });
        this.conversation.user('Call exactly one of the tools to make progress.');
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

  private async generate(): Promise<{ text: string; toolCalls: ToolCall[]; costUsd: number }> {
    const { provider, signal, spend } = this.deps;
    const reserved = worstCaseCallCostUsd(provider, RESERVED_INPUT_TOKENS, MAX_OUTPUT_TOKENS);
    if (reserved > 0) await spend.reserve(reserved);
    const reply = await provider.generate(this.conversation.request(this.toolSpecs, signal));
    const costUsd = estimateCostUsd(provider, reply.usage);
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
      const outcome = failure(`unknown tool ${call.name}`);
      return this.recordStep({ tool: call.name, args, outcome, started, costUsd, call });
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
    return this.recordStep({ tool: call.name, args, outcome, started, costUsd, call });
  }

  private async builtin(
    call: ToolCall,
    args: Record<string, unknown>,
    started: number,
    costUsd: number,
  ): Promise<SliceResult | undefined> {
    const step = { tool: call.name, args, started, costUsd, call };
    let text: string;
    try {
      const field =
        call.name === 'request_human_input' ? 'question' : call.name === 'finish_task' ? 'summary' : 'text';
      text = stringArg(args, field);
    } catch (error) {
      return this.recordStep({ ...step, outcome: failure(error) });
    }
    const extra: StepDone['extra'] = {};
    if (call.name === 'record_finding') extra.finding = { text, attempt: this.deps.attempt, at: Date.now() };
    if (call.name === 'message_user') extra.message = { kind: 'agent', text };
    const failed = await this.recordStep({
      ...step,
      outcome: { key: null, ok: true, result: { ok: true } },
      extra,
    });
    if (failed) return failed;
    if (call.name === 'finish_task') return { end: 'verifying', claim: text };
    if (call.name === 'request_human_input') return { end: 'waiting_on_human', question: text };
    return undefined;
  }

  private async recordStep(done: StepDone): Promise<SliceResult | undefined> {
    const { task, attempt, slice, recorder, context, config } = this.deps;
    const { tool, args, outcome, started, costUsd = 0, call, extra = {} } = done;
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
    if (call) {
      const payload = outcome.ok ? (outcome.result ?? { ok: true }) : { error: outcome.error };
      this.conversation.toolResult(call, outcome.ok, payload);
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

function failure(error: unknown): ToolOutcome {
  return { key: null, ok: false, error: String(error) };
}
