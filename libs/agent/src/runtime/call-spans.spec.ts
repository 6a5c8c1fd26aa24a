import { loadConfig } from '@vigil/config';
import type { SliceContext, TaskRecord, WriteJournal } from '@vigil/tasks';
import { attemptSpanId } from '@vigil/telemetry';
import {
  builtInKindBinder,
  FakeToolGateway,
  InMemoryStepLedger,
  memoryTracing,
  newNoopTask,
} from '@vigil/testing';
import type { GenerateRequest, GenerateResult, ModelProvider } from '../models/model-provider';
import { estimateCostUsd } from '../models/price-table';
import { CallWatchdog } from './call-watchdog';
import type { ModelSpend } from './model-spend';
import { PaidModelCall } from './paid-model-call';
import { SliceSession } from './slice-session';
import { ToolExecutor } from './tool-executor';

/** A priced model that walks a noop task, reporting usage as a provider does; its 3rd call fails. */
class BilledNoop implements ModelProvider {
  readonly name = 'opus';
  readonly modelId = 'claude-opus-4-1';
  calls = 0;
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const call = ++this.calls;
    if (call === 3) throw new Error('overloaded: key sk-ant-secret-key-1 rejected');
    const usage = { inputTokens: 1000 + call, outputTokens: 50, cacheReadTokens: 400, cacheWriteTokens: 0 };
    const index = request.messages.filter((message) => message.role === 'tool').length;
    return { text: '', toolCalls: [{ id: `c${call}`, name: 'noop_step', args: { index } }], usage };
  }
}

/** The spans of a slice's calls (docs/observability.md, "Spans and attributes"), through the real SDK in memory. */
describe('model and tool call spans', () => {
  const config = loadConfig({
    SLICE_MAX_STEPS: '4',
    MAX_CONSECUTIVE_ERRORS: '3',
    ANTHROPIC_API_KEY: 'sk-ant-unit',
  });
  const kinds = builtInKindBinder(config, new FakeToolGateway([]));
  const watchdog = new CallWatchdog(config);
  afterAll(() => watchdog.onApplicationShutdown());
  const money: Pick<ModelSpend, 'reserve' | 'settleGlobal'> = {
    reserve: async () => ({ grantedUsd: 0.25, maxTokens: 4096 }),
    settleGlobal: async () => {},
  };

  async function runSlice(captureContent: boolean) {
    const { tracing, spans } = memoryTracing({
      captureContent,
      scrub: (text) => text.replaceAll('sk-ant-secret-key-1', '[redacted]'),
    });
    const task = {
      id: 'tsk_spans',
      ...newNoopTask({ input: { steps: 5 }, totalUnits: 5 }),
      attempt: 2,
    } as unknown as TaskRecord;
    const context: SliceContext = { doneSteps: new Set(), outputs: new Map(), findings: [] };
    const bound = kinds.bind(task);
    const tools = await bound.tools();
    const slice = tracing.start('vigil.slice', { taskId: task.id, attempt: 2 });
    const provider = new BilledNoop();
    const session = new SliceSession({
      slice: {
        task,
        kind: bound.kind,
        tools,
        kindServices: bound.services,
        attempt: 2,
        slice: 1,
        context,
        signal: new AbortController().signal,
        span: slice,
      },
      ledger: new InMemoryStepLedger(context, { attempt: 2, slice: 1 }),
      model: new PaidModelCall(provider, money, config, undefined, { tracing, parent: slice }),
      hooks: { onHungCall: () => undefined, draining: () => false },
      services: { config, executor: new ToolExecutor({} as WriteJournal), watchdog, tracing },
    });
    expect(await session.run()).toEqual({ end: 'next_slice' });
    slice.end();
    return { spans: spans(), provider };
  }

  it('gives each model call its usage and cost, and a failed call the charge it was billed', async () => {
    const { spans } = await runSlice(false);
    const slice = spans.find((span) => span.name === 'vigil.slice')!;
    expect(slice.parentSpanContext?.spanId).toBe(attemptSpanId('tsk_spans', 2));
    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(4);
    for (const chat of chats) {
      expect(chat.name).toBe('chat claude-opus-4-1');
      expect(chat.parentSpanContext?.spanId).toBe(slice.spanContext().spanId);
    }
    const [first, , failed] = chats;
    expect(first.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-opus-4-1',
      'gen_ai.request.max_tokens': 4096,
      'gen_ai.usage.input_tokens': 1001,
      'gen_ai.usage.output_tokens': 50,
      'gen_ai.usage.cache_read.input_tokens': 400,
      'vigil.reserved_usd': 0.25,
      'vigil.model': 'opus',
    });
    expect(first.attributes['vigil.cost_usd']).toBeCloseTo(
      estimateCostUsd(
        { modelId: 'claude-opus-4-1' },
        { inputTokens: 1001, outputTokens: 50, cacheReadTokens: 400 },
      ),
      9,
    );
    expect(first.attributes['gen_ai.input.messages']).toBeUndefined();
    // The failed call was charged its reservation: its span says so, the error scrubbed.
    expect(failed.status).toEqual({ code: 2, message: 'overloaded: key [redacted] rejected' });
    expect(failed.attributes['vigil.cost_usd']).toBe(0.25);
  });

  it('gives each tool call a span under the slice with its effect, outcome and step key; content only when asked', async () => {
    const plain = await runSlice(false);
    const tools = plain.spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((span) => span.attributes['vigil.step.key'])).toEqual(['step:0', 'step:1', 'step:2']);
    expect(tools[0].attributes).toMatchObject({
      'gen_ai.tool.name': 'noop_step',
      'gen_ai.tool.call.id': 'c1',
      'vigil.tool.effect': 'read',
      'vigil.tool.outcome': 'ok',
    });
    expect(tools[0].attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(tools[0].attributes['vigil.tool.journal']).toBeUndefined();

    const captured = await runSlice(true);
    const [tool] = captured.spans.filter(
      (span) => span.attributes['gen_ai.operation.name'] === 'execute_tool',
    );
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ index: 0 });
    expect(String(tool.attributes['gen_ai.tool.call.result'])).toContain('"index":0');
    const [chat] = captured.spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(String(chat.attributes['gen_ai.system_instructions'])).toContain('noop_step');
    expect(JSON.parse(String(chat.attributes['gen_ai.output.messages']))[0].toolCalls[0].name).toBe(
      'noop_step',
    );
  });
});
