import {
  AnthropicFake,
  OtlpReceiver,
  type ReceivedSpan,
  RedisTestContext,
  VigilStack,
  WebhookReceiver,
} from '@vigil/testing';
import { attemptSpanId, taskRootSpanId, taskTraceId } from '@vigil/telemetry';

const FAST = {
  HEARTBEAT_INTERVAL_MS: '200',
  STALE_AFTER_MS: '2000',
  WATCHER_INTERVAL_MS: '250',
  LIVENESS_INTERVAL_MS: '100',
  USER_UPDATE_INTERVAL_MS: '500',
  SLICE_MAX_STEPS: '4',
  // Spans leave a process within 100 ms; a SIGKILLed Worker loses only what it ended since.
  OTEL_BSP_SCHEDULE_DELAY: '100',
};
const STEPS = 8;

/**
 * One task told through traces (docs/observability.md), with the four apps as processes sending
 * OTLP to a receiver in the test: attempt 1 (gemini → the scripted driver) SIGKILLs its Worker
 * before its 3rd step, attempt 2 (scripted) claims done after 5 steps and fails verification,
 * attempt 3 (opus → the real Anthropic SDK against a loopback fake that bills usage) completes.
 * Every span of the task is in the trace derived from its id, whichever process made it.
 */
describe.each(['http/json', 'http/protobuf'])('traces over OTLP %s', (protocol) => {
  const ctx = new RedisTestContext(`otel-${protocol.replace('/', '-')}`);
  const receiver = new OtlpReceiver();
  const hooks = new WebhookReceiver();
  const fake = new AnthropicFake({ apiKey: 'sk-ant-otel-test' });
  let stack: VigilStack;
  let id: string;
  let spentUsd: number;
  let spans: ReceivedSpan[];
  let hookUrl: string;

  beforeAll(async () => {
    await Promise.all([receiver.listen(), fake.listen(ctx)]);
    hookUrl = await hooks.listen();
    ctx.onClose(() => Promise.all([receiver.close(), hooks.close()]).then(() => undefined));
    stack = new VigilStack(ctx, {
      ...FAST,
      ...fake.env(),
      FIRST_MODEL: 'gemini',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    });
    await stack.startAll(['api', 'watcher', 'notifier', 'worker', 'worker']);

    const created = await stack.api!.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: STEPS, stepMs: 20 },
      notify: { webhookUrl: `${hookUrl}/hooks` },
      agent: { policy: ['gemini', 'opus'], scripted: { crashAtStep: 3, falseFinishAfter: 5 } },
    });
    expect(created.status).toBe(201);
    id = created.body.id as string;
    const task = await stack.waitForTask(id, (t) => t.status === 'completed', 60_000, 'completion');
    expect(task.retryHistory.map((entry) => [entry.attempt, entry.reason])).toEqual([
      [1, 'crashed'],
      [2, 'failed_verification'],
    ]);
    spentUsd = task.spentUsd;
    await hooks.waitFor(() => hooks.received.some((hook) => hook.rawBody.includes('"completed"')), 10_000);
    // SIGTERM: each process exports what it still holds before it exits.
    await stack.stopAll();
    spans = receiver.trace(taskTraceId(id));
  }, 120_000);
  afterAll(() => ctx.close());

  const named = (name: string) => spans.filter((span) => span.name === name);
  const attemptOf = (span: ReceivedSpan) => span.attributes['vigil.attempt'];

  it('receives every export in the configured encoding, and the spans of all four apps in one trace', () => {
    expect(receiver.errors).toEqual([]);
    const encoding = protocol === 'http/json' ? 'json' : 'protobuf';
    expect(new Set(receiver.exports.map((e) => e.encoding))).toEqual(new Set([encoding]));
    // Whatever span names the task, it is in the task's trace.
    const aboutTask = receiver.spans.filter((span) => span.attributes['vigil.task.id'] === id);
    expect(aboutTask.length).toBeGreaterThan(10);
    expect(aboutTask.every((span) => span.traceId === taskTraceId(id))).toBe(true);
    expect(new Set(spans.map((span) => span.service))).toEqual(
      new Set(['vigil-api', 'vigil-worker', 'vigil-watcher', 'vigil-notifier']),
    );
  });

  it('has one root, the creation, and each attempt once as its child, the retries with their reasons', () => {
    const [root, ...others] = spans.filter((span) => !span.parentSpanId);
    expect(others).toEqual([]);
    expect(root).toMatchObject({ name: 'task.create', spanId: taskRootSpanId(id), service: 'vigil-api' });
    const attempts = named('vigil.attempt').sort((a, b) => Number(attemptOf(a)) - Number(attemptOf(b)));
    expect(attempts.map((span) => [attemptOf(span), span.attributes['vigil.attempt.reason']])).toEqual([
      [1, 'created'],
      [2, 'crashed'],
      [3, 'failed_verification'],
    ]);
    for (const attempt of attempts) {
      expect(attempt.spanId).toBe(attemptSpanId(id, Number(attemptOf(attempt))));
      expect(attempt.parentSpanId).toBe(root.spanId);
    }
    expect(attempts.map((span) => span.attributes['vigil.model'])).toEqual(['gemini', 'gemini', 'opus']);
    // Every other span hangs in the tree, except what the killed Worker exported of its last
    // slice before it died: calls whose slice span was still open at the SIGKILL.
    const known = new Set(spans.map((span) => span.spanId));
    const dangling = spans.filter((span) => span.parentSpanId && !known.has(span.parentSpanId));
    expect(new Set(dangling.map((span) => span.parentSpanId)).size).toBeLessThanOrEqual(1);
    for (const span of dangling) {
      expect(span.service).toBe('vigil-worker');
      expect(['chat', 'execute_tool']).toContain(span.attributes['gen_ai.operation.name']);
    }
  });

  it('shows the recovery of the killed attempt with its reason, under that attempt', () => {
    const [recover, ...more] = named('vigil.watcher.recover');
    expect(more).toEqual([]);
    expect(recover).toMatchObject({ service: 'vigil-watcher', parentSpanId: attemptSpanId(id, 1) });
    expect(recover.attributes).toMatchObject({ 'vigil.recovery.reason': 'crashed', 'vigil.attempt': 1 });
  });

  it('shows the failed verification with each criterion and the missing items, then the one that passed', () => {
    const verifications = named('vigil.watcher.verify').sort((a, b) => a.startMs - b.startMs);
    expect(verifications).toHaveLength(2);
    const [failed, passed] = verifications;
    expect(failed.parentSpanId).toBe(attemptSpanId(id, 2));
    expect(failed.status.code).toBe(2);
    expect(failed.attributes['vigil.verification.passed']).toBe(false);
    const missing = failed.attributes['vigil.verification.missing'] as string[];
    expect(missing).toEqual([expect.stringMatching(/steps missing from the action log/)]);
    expect(failed.status.message).toContain(missing[0]);
    const checks = failed.events.filter((event) => event.name === 'vigil.check');
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.some((event) => event.attributes['vigil.check.passed'] === false)).toBe(true);
    // Content capture is off: the criterion's values are not on the span, its words are.
    expect(checks.every((event) => !('vigil.check.actual' in event.attributes))).toBe(true);
    expect(passed.parentSpanId).toBe(attemptSpanId(id, 3));
    expect(passed.attributes['vigil.verification.passed']).toBe(true);
    expect(passed.status.code).not.toBe(2);
  });

  it('gives every model call its tokens and cost, the costs adding up to the spend', () => {
    const calls = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    // One tool call per model turn here (the noop plan, the fake): as many calls as tool spans
    // in the attempts that ran to their end, each under its slice.
    const slices = new Map(named('vigil.slice').map((slice) => [slice.spanId, slice]));
    const lateAttempts = (span: ReceivedSpan) => Number(attemptOf(slices.get(span.parentSpanId!)!)) >= 2;
    const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    const inSlices = (span: ReceivedSpan) => slices.has(span.parentSpanId!);
    expect(calls.filter(inSlices).filter(lateAttempts).length).toBe(
      tools.filter(inSlices).filter(lateAttempts).length,
    );
    for (const call of calls) {
      expect(call.kind).toBe(3);
      expect(call.attributes).toMatchObject({
        'gen_ai.request.model': expect.any(String),
        'gen_ai.provider.name': expect.stringMatching(/^(anthropic|scripted)$/),
        'gen_ai.usage.input_tokens': expect.any(Number),
        'gen_ai.usage.output_tokens': expect.any(Number),
        'gen_ai.usage.cache_read.input_tokens': expect.any(Number),
        'vigil.cost_usd': expect.any(Number),
      });
      // No content unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
      expect(call.attributes['gen_ai.input.messages']).toBeUndefined();
    }
    const billed = calls.filter((call) => call.attributes['gen_ai.provider.name'] === 'anthropic');
    expect(billed.length).toBeGreaterThan(0);
    expect(billed.every((call) => (call.attributes['gen_ai.usage.input_tokens'] as number) > 0)).toBe(true);
    const total = calls.reduce((sum, call) => sum + (call.attributes['vigil.cost_usd'] as number), 0);
    expect(spentUsd).toBeGreaterThan(0);
    expect(total).toBeCloseTo(spentUsd, 6);
  });

  it('gives every tool call of the attempts that ran to their end a span under its slice, with its step key', async () => {
    const slices = new Map(named('vigil.slice').map((slice) => [slice.spanId, slice]));
    for (const slice of slices.values())
      expect(slice.parentSpanId).toBe(attemptSpanId(id, Number(attemptOf(slice))));
    // (What the killed Worker exported of its open slice hangs from it: see the tree test.)
    const tools = spans.filter(
      (span) => span.attributes['gen_ai.operation.name'] === 'execute_tool' && slices.has(span.parentSpanId!),
    );
    const actions = (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1))
      .map((raw) => JSON.parse(raw) as { attempt: number; tool: string; key?: string })
      .filter((action) => action.attempt >= 2 && action.tool !== '(model)');
    const traced = tools.filter((tool) => Number(attemptOf(slices.get(tool.parentSpanId!)!)) >= 2);
    expect(traced.map((tool) => tool.attributes['gen_ai.tool.name']).sort()).toEqual(
      actions.map((action) => action.tool).sort(),
    );
    const noopSteps = traced.filter((tool) => tool.attributes['gen_ai.tool.name'] === 'noop_step');
    expect(noopSteps.every((tool) => tool.attributes['vigil.tool.effect'] === 'read')).toBe(true);
    expect(noopSteps.every((tool) => /^step:\d+$/.test(String(tool.attributes['vigil.step.key'])))).toBe(
      true,
    );
  });

  it('sends the traceparent of each webhook delivery, whose span is in the trace', () => {
    const delivered = hooks.received.filter((hook) => hook.path === '/hooks');
    expect(delivered.length).toBeGreaterThan(0);
    const deliveries = new Set(named('webhook POST').map((span) => span.spanId));
    for (const hook of delivered) {
      const [, traceId, spanId] = String(hook.headers.traceparent).split('-');
      expect(traceId).toBe(taskTraceId(id));
      expect(deliveries.has(spanId)).toBe(true);
    }
  });
});
