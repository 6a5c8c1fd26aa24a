import { AnthropicFake, HttpClient, RedisTestContext, VigilStack, WebhookReceiver } from '@vigil/testing';
import { sample } from '../../support/prometheus-text';

/**
 * `/metrics` read before and after a run (docs/operations.md, "Metrics"): a task whose
 * webhook target keeps failing moves the notifier's failure and dead-letter metrics by exactly
 * what the target saw, and the Watcher's sweeps are timed; a task run through the real Anthropic
 * SDK (against a loopback fake) moves the Worker's spend and token counters by what it billed.
 */
describe('metrics of a run with a failing webhook', () => {
  const ctx = new RedisTestContext('ops-run-metrics');
  const fake = new AnthropicFake({ apiKey: 'sk-ant-run-metrics-key' });
  const stack = new VigilStack(ctx, {
    ANTHROPIC_API_KEY: 'sk-ant-run-metrics-key',
    RETRY_POLICY: 'opus',
    API_KEYS: 'acme:acme-key-00001',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_MAX_ATTEMPTS: '2',
    WEBHOOK_BACKOFF_MS: '20',
    WATCHER_INTERVAL_MS: '200',
  });
  const receiver = new WebhookReceiver();
  const ports: Record<string, number> = {};
  let api: HttpClient;
  let hookUrl: string;

  beforeAll(async () => {
    stack.env.ANTHROPIC_BASE_URL = await fake.listen();
    hookUrl = await receiver.listen();
    // Every delivery attempt is refused with a 500 (a retryable failure).
    receiver.answers = Array.from({ length: 1_000 }, () => 500);
    for (const app of ['api', 'worker', 'watcher', 'notifier'] as const)
      ports[app] = (await stack.start(app)).port!;
    api = new HttpClient(`http://127.0.0.1:${ports.api}`, 'acme-key-00001');
  });

  afterAll(async () => {
    await stack.stopAll();
    await receiver.close();
    await fake.close();
    await ctx.close();
  });

  const scrape = async (app: string) => (await fetch(`http://127.0.0.1:${ports[app]}/metrics`)).text();

  it('counts every failed attempt and every dead letter, and times the sweeps', async () => {
    const before = { notifier: await scrape('notifier'), watcher: await scrape('watcher') };
    expect(sample(before.notifier, 'vigil_webhook_failures_total')).toBe(0);
    expect(sample(before.notifier, 'vigil_webhook_dead_letters_total')).toBe(0);
    expect(sample(before.notifier, 'vigil_webhook_dead_letter_list')).toBe(0);
    // Retention's counters are the Watcher's, exported from boot.
    expect(before.watcher).toMatch(/^vigil_archived_total\{app="vigil-watcher"\} 0$/m);
    expect(before.watcher).toMatch(/^vigil_archive_failures_total\{app="vigil-watcher"\} 0$/m);

    const created = await api.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: 3 },
      notify: { webhookUrl: `${hookUrl}/hooks` },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await stack.waitForTask(id, (task) => task.status === 'completed', 30_000, 'completion');
    // The final message's delivery fails twice, then is dead-lettered.
    const messageIds = () => [
      ...new Set(receiver.received.map((hook) => String(hook.headers['vigil-message-id']))),
    ];
    const everyMessageTriedTwice = () =>
      receiver.received.some((hook) => hook.rawBody.includes('"completed"')) &&
      messageIds().every((messageId) => receiver.forMessage(messageId).length === 2);
    await receiver.waitFor(everyMessageTriedTwice, 30_000);
    // The notifier counts a dead letter just after the target's second refusal: wait until its
    // metrics have caught up with every message the target saw (under load this takes a moment).
    let messages = messageIds().length;
    let after = await scrape('notifier');
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      messages = messageIds().length;
      if (everyMessageTriedTwice() && sample(after, 'vigil_webhook_dead_letters_total') >= messages) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await scrape('notifier');
    }
    expect(messages).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'vigil_webhook_failures_total', { final: 'false' })).toBe(messages);
    expect(sample(after, 'vigil_webhook_failures_total', { final: 'true' })).toBe(messages);
    expect(sample(after, 'vigil_webhook_dead_letters_total')).toBe(messages);
    expect(sample(after, 'vigil_webhook_dead_letter_list', { shard: '0' })).toBe(messages);

    // Sweeps run every 200 ms; one slowed by the machine's load still lands within 10 s.
    const sweeps = (text: string) => sample(text, 'vigil_sweep_duration_seconds_count');
    const sweepsBefore = sweeps(before.watcher);
    let sweepsAfter = sweeps(await scrape('watcher'));
    for (const deadline = Date.now() + 10_000; sweepsAfter <= sweepsBefore && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      sweepsAfter = sweeps(await scrape('watcher'));
    }
    if (sweepsAfter <= sweepsBefore) {
      const watcherLog = stack.processes.find((app) => app.name === 'watcher')?.text() ?? '';
      throw new Error(
        `no sweep was timed after ${sweepsBefore}; the watcher said:\n${watcherLog.slice(-6_000)}`,
      );
    }
  }, 90_000);

  it("counts the Worker's model spend, calls and tokens by provider and model", async () => {
    const labels = { provider: 'anthropic', model: 'claude-opus-4-1' };
    const before = await scrape('worker');
    const callsBefore = fake.calls;
    const created = await api.post('/v1/tasks', { kind: 'noop', input: { steps: 3 } });
    expect(created.status).toBe(201);
    const task = await stack.waitForTask(
      created.body.id,
      (t) => t.status === 'completed',
      30_000,
      'completion',
    );
    expect(task.provider).toBe('anthropic');
    const after = await scrape('worker');
    const delta = (name: string, extra: Record<string, string> = {}) =>
      sample(after, name, { ...labels, ...extra }) - sample(before, name, { ...labels, ...extra });
    // The fake bills 400 input and 20 output tokens per call, priced by the price table.
    const calls = fake.calls - callsBefore;
    expect(calls).toBeGreaterThanOrEqual(4);
    expect(delta('vigil_model_calls_total')).toBe(calls);
    expect(delta('vigil_model_tokens_total', { type: 'input' })).toBe(400 * calls);
    expect(delta('vigil_model_tokens_total', { type: 'output' })).toBe(20 * calls);
    expect(delta('vigil_model_spend_usd_total')).toBeCloseTo(task.spentUsd, 6);
    expect(task.spentUsd).toBeGreaterThan(0);
  });
});
