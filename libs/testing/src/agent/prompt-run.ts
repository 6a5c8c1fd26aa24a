import { setMaxListeners } from 'node:events';
import { loadConfig } from '@vigil/config';
import { FakeToolGateway } from '../kinds/fake-tool-gateway';
import { kindServices, type TaskKind } from '@vigil/kinds';
import type {
  JournalEntry,
  RecordedStep,
  SliceContext,
  SpendLedger,
  StepRecord,
  StepRecorder,
  TaskRecord,
  WriteJournal,
} from '@vigil/tasks';
import {
  AnthropicProvider,
  createAnthropicClient,
  createGeminiClient,
  estimateCostUsd,
  GeminiProvider,
  type GlobalSpendGate,
  type ModelProvider,
  ModelSpend,
  promptTokenBound,
  type PromptStyle,
  SliceSession,
  ToolExecutor,
  PaidModelCall,
  RecordedStepLedger,
} from '@vigil/agent';
import {
  AnthropicBillingFake,
  type BilledCall,
  GeminiBillingFake,
  type NextToolCall,
} from '../providers/billing-fakes';

export const ANTHROPIC_MODEL = 'claude-opus-4-1';
export const GEMINI_MODEL = 'gemini-2.5-pro';
const KEY = 'prompt-run-key';

export interface PromptRunOptions {
  provider: 'anthropic' | 'gemini';
  kind: TaskKind;
  input: unknown;
  /** `bounded` (default) or the prompt as it was before; `unbounded` also sends no cache breakpoints. */
  style?: PromptStyle;
  sliceMaxSteps?: number;
  budgetUsd?: number;
  /** Extra configuration (META_API_BASE_URL for a campaign build against the Meta sandbox). */
  env?: Record<string, string>;
  /** The fake model's moves; by default it walks the kind's plan, then calls finish_task. */
  next?: NextToolCall;
}

export interface PromptRunResult {
  /** Every model call as the fake saw the SDK's request and billed it, in order. */
  calls: BilledCall[];
  /** What the runtime charged the task (Usage parsed from the SDK's response × the price table). */
  chargedUsd: number;
  /** The price table applied to the fake's own billing of each call. */
  billedUsd: number;
  /** The largest worst-case reservation and the largest prompt bound promptTokenBound measured. */
  maxReservedUsd: number;
  maxPromptBound: number;
  /** promptTokenBound of each call's request, as the reservation measured it, in call order. */
  promptBounds: number[];
  slices: number;
  end: string;
  context: SliceContext;
  /** The action log as the step recorder received it. */
  actions: StepRecord['action'][];
}

/**
 * A whole task, slice after slice, through the real SliceSession, prompt builder, provider and SDK,
 * against a billing fake (billing-fakes.ts), with the kind's real tools. The Redis-backed parts are
 * stood in for in memory: the step recorder keeps the context as record-step.lua does, the write
 * journal remembers results, the spend ledger enforces the budget. Each slice starts from the
 * context the last one left, as a Worker holding it does (slice-context.ts).
 */
export async function runPromptTask(options: PromptRunOptions): Promise<PromptRunResult> {
  const style = options.style ?? 'bounded';
  const { kind, input } = options;
  const plan = kind.scriptedPlan?.(input) ?? [];
  const next: NextToolCall =
    options.next ??
    ((call) =>
      call < plan.length
        ? { name: plan[call].tool, args: plan[call].args }
        : { name: 'finish_task', args: { summary: 'every step is done' } });
  const fake =
    options.provider === 'anthropic'
      ? new AnthropicBillingFake({ apiKey: KEY, next })
      : new GeminiBillingFake({ apiKey: KEY, next });
  const baseUrl = await fake.listen();
  try {
    const config = loadConfig({
      SLICE_MAX_STEPS: String(options.sliceMaxSteps ?? 14),
      MAX_CONSECUTIVE_ERRORS: '3',
      ...options.env,
    });
    const budgetUsd = options.budgetUsd ?? 3;
    const task = {
      id: 'tsk_prompt_run',
      title: kind.defaultTitle(input),
      kind: kind.name,
      input,
      exitCriteria: kind.defaultExitCriteria(input),
      totalUnits: kind.totalUnits(input),
      budgetUsd,
      attempt: 1,
    } as unknown as TaskRecord;
    const context: SliceContext = { doneSteps: new Set(), outputs: new Map(), findings: [] };
    const books = new InMemoryBooks(budgetUsd);
    const anthropicClient =
      options.provider === 'anthropic'
        ? createAnthropicClient(
            { anthropicApiKey: KEY, anthropicBaseUrl: baseUrl, anthropicModel: ANTHROPIC_MODEL },
            { maxRetries: 0 },
          )
        : undefined;
    const geminiClient =
      options.provider === 'gemini'
        ? createGeminiClient(
            { geminiApiKey: KEY, geminiBaseUrl: baseUrl, geminiModel: GEMINI_MODEL },
            { attempts: 1, fetch: (url, init) => fetch(url, init) },
          )
        : undefined;
    const provider = (): ModelProvider =>
      anthropicClient
        ? new AnthropicProvider(
            { anthropicApiKey: KEY, anthropicBaseUrl: baseUrl, anthropicModel: ANTHROPIC_MODEL },
            { client: anthropicClient, promptCaching: style === 'bounded' },
          )
        : new GeminiProvider(
            { geminiApiKey: KEY, geminiBaseUrl: baseUrl, geminiModel: GEMINI_MODEL },
            { client: geminiClient },
          );
    let maxPromptBound = 0;
    const promptBounds: number[] = [];
    let end = 'next_slice';
    let slices = 0;
    while (end === 'next_slice' && slices < 10_000) {
      slices++;
      const model = provider();
      // Gemini's SDK adds an abort listener per call; a slice makes up to SLICE_MAX_STEPS calls.
      const signal = new AbortController().signal;
      setMaxListeners(100, signal);
      const measured: ModelProvider = {
        name: model.name,
        modelId: model.modelId,
        generate: (request) => {
          const bound = promptTokenBound(request);
          promptBounds.push(bound);
          maxPromptBound = Math.max(maxPromptBound, bound);
          return model.generate(request);
        },
      };
      const session = new SliceSession({
        slice: {
          task,
          kind,
          tools: kind.tools,
          kindServices: kindServices(config, new FakeToolGateway([])),
          attempt: 1,
          slice: slices,
          context,
          signal,
          promptStyle: style,
        },
        ledger: new RecordedStepLedger(books as unknown as StepRecorder, {
          taskId: task.id,
          attempt: 1,
          slice: slices,
          context,
          contextVersion: books.version,
          writer: `run-${slices}`,
          codeVersion: 'prompt-run',
        }),
        model: new PaidModelCall(
          measured,
          new ModelSpend(books as unknown as SpendLedger, books as unknown as GlobalSpendGate, {
            id: task.id,
            attempt: 1,
            budgetUsd,
          }),
          config,
        ),
        hooks: { onHungCall: () => undefined, draining: () => false },
        services: {
          config,
          executor: new ToolExecutor(books as unknown as WriteJournal),
          watchdog: { watch: (call, onOverrun) => ({ call, onOverrun }), release: () => undefined },
        },
      });
      const result = await session.run();
      end = result.end;
      if (result.end === 'failed_attempt' || result.end === 'paused')
        end = `${result.end}: ${result.detail ?? result.reason ?? ''}`;
    }
    const modelId = options.provider === 'anthropic' ? ANTHROPIC_MODEL : GEMINI_MODEL;
    const billedUsd = fake.calls.reduce(
      (sum, call) =>
        sum +
        estimateCostUsd(
          { modelId },
          {
            inputTokens: call.usage.uncached,
            outputTokens: call.usage.output,
            cacheReadTokens: call.usage.cacheRead,
            cacheWriteTokens: call.usage.cacheWrite,
          },
        ),
      0,
    );
    return {
      calls: fake.calls,
      chargedUsd: books.spentUsd,
      billedUsd,
      maxReservedUsd: books.maxGrantUsd,
      maxPromptBound,
      promptBounds,
      slices,
      end,
      context,
      actions: books.actions,
    };
  } finally {
    await fake.close();
  }
}

/** The step recorder, write journal, spend ledger and global gate, in memory, for one task. */
class InMemoryBooks {
  version = 0;
  private steps = 0;
  private errors = 0;
  spentUsd = 0;
  private reservedUsd = 0;
  maxGrantUsd = 0;
  private readonly journal = new Map<string, JournalEntry>();
  private readonly done = new Set<string>();
  readonly actions: StepRecord['action'][] = [];

  constructor(private readonly budgetUsd: number) {}

  // StepRecorder
  async record(record: StepRecord): Promise<RecordedStep> {
    this.steps++;
    this.version++;
    this.actions.push(record.action);
    this.errors = record.succeeded ? 0 : this.errors + 1;
    if (record.succeeded && record.action.key) this.done.add(record.action.key);
    if (record.journal && record.action.key) this.journal.set(record.action.key, record.journal);
    this.spentUsd += record.spentUsd ?? 0;
    this.reservedUsd -= record.releaseUsd ?? 0;
    return {
      step: this.steps,
      completedUnits: this.done.size,
      consecutiveErrors: this.errors,
      contextVersion: this.version,
      steerCount: 0,
    };
  }

  // WriteJournal
  async begin(_taskId: string, attempt: number, key: string, args: Record<string, unknown>) {
    const entry = this.journal.get(key);
    if (entry?.state === 'done') return { state: 'done' as const, entry };
    if (entry) return { state: 'unknown' as const, entry };
    this.journal.set(key, { state: 'intent', attempt, at: Date.now(), args });
    return { state: 'new' as const };
  }

  // SpendLedger
  async reserveTask(_taskId: string, _attempt: number, worstUsd: number, floorUsd: number) {
    const remainingUsd = this.budgetUsd - this.spentUsd - this.reservedUsd;
    const grantedUsd = worstUsd <= remainingUsd ? worstUsd : floorUsd <= remainingUsd ? remainingUsd : -1;
    if (grantedUsd < 0) return { refused: true as const, remainingUsd };
    this.reservedUsd += grantedUsd;
    this.maxGrantUsd = Math.max(this.maxGrantUsd, grantedUsd);
    return { grantedUsd };
  }

  async releaseTask(_taskId: string, _attempt: number, grantedUsd: number): Promise<void> {
    this.reservedUsd -= grantedUsd;
  }

  // GlobalSpendGate (no global cap in a measured run)
  async reserve(): Promise<void> {}
  async settle(): Promise<void> {}
}
