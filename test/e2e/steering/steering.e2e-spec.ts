import { AnthropicFake, RedisTestContext, VigilStack } from '@vigil/testing';
import { until } from '../../support/until';

/** Every text a request carries to the model, as one string. */
const textOf = (value: unknown): string => JSON.stringify(value);

/**
 * Steering through the real `@anthropic-ai/sdk` against the loopback Messages API (docs/api.md,
 * "Steering"): an instruction given while a model call is in flight is in the very next request,
 * and one given while the Worker is dead is in the first request of the recovered attempt, with
 * every earlier one.
 */
describe('steering a running task (real processes, the real Anthropic SDK)', () => {
  const ctx = new RedisTestContext('steering-e2e');
  // Call 3 is held in flight until the test releases it.
  const fake = new AnthropicFake({ apiKey: 'sk-ant-steering-test', holdOnCalls: [3] });
  let stack: VigilStack;

  beforeAll(async () => {
    stack = await fake.stackOn(ctx, {
      RETRY_POLICY: 'opus',
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '30000',
      WATCHER_INTERVAL_MS: '60000',
    });
    await stack.startAll();
  });
  afterAll(() => ctx.close());

  it('gives the instruction at the next model call, and again after a SIGKILL and recovery', async () => {
    await stack.stopApps('worker');
    let worker = await stack.start('worker');
    const created = await stack.api!.post('/v1/tasks', { kind: 'noop', input: { steps: 12, stepMs: 150 } });
    const id = created.body.id as string;

    // The third model call is in flight: the instruction comes while the model thinks.
    await until(() => fake.calls >= 3, 20_000, 'the third model call');
    const first = await stack.api!.post(`/v1/tasks/${id}/steer`, { text: 'Skip the EU sites.' });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ taskId: id, text: 'Skip the EU sites.', applies: 'next_model_call' });
    expect(fake.release(3)).toBe(true);
    await until(() => fake.calls >= 4, 20_000, 'the fourth model call');
    expect(textOf(fake.requests[2])).not.toContain('Skip the EU sites.');
    // The next request announces it at the end, after the unchanged earlier turns.
    const next = fake.requests[3] as { messages: unknown[] };
    expect(textOf(next.messages.at(-1))).toContain(
      'New instruction from the user, given while you work: Skip the EU sites.',
    );
    expect(textOf(next.messages[0])).toBe(textOf((fake.requests[2] as { messages: unknown[] }).messages[0]));

    // The Worker dies; an instruction given while nobody runs the task reaches the recovered attempt.
    await stack.waitForTask(id, (t) => (t.completedUnits ?? 0) >= 5, 20_000, '5 steps');
    worker.signal('SIGKILL');
    const callsBeforeRecovery = fake.calls;
    const second = await stack.api!.post(`/v1/tasks/${id}/steer`, { text: 'Only check the pricing page.' });
    expect(second.status).toBe(202);
    worker = await stack.start('worker');
    const recovered = await stack.waitForTask(
      id,
      (t) => t.attempt === 2 && fake.calls > callsBeforeRecovery,
      20_000,
      'the recovered attempt',
    );
    expect(recovered.retryHistory).toEqual([expect.objectContaining({ reason: 'crashed' })]);
    // A request the dead Worker sent just before the kill may reach the fake after it: the recovered
    // attempt's first request is the first that carries the retry context.
    const firstRecovered = fake.requests.findIndex(
      (request, i) => i >= callsBeforeRecovery && textOf(request.system).includes('This is retry 1'),
    );
    expect(firstRecovered).toBeGreaterThanOrEqual(callsBeforeRecovery);
    const opening = textOf((fake.requests[firstRecovered] as { messages: unknown[] }).messages[0]);
    expect(opening).toContain('Instructions the user gave while the task ran');
    expect(opening).toContain('1. Skip the EU sites.');
    expect(opening).toContain('2. Only check the pricing page.');

    const done = await stack.waitForTask(id, (t) => t.status === 'completed', 30_000, 'completion');
    expect(done.provider).toBe('anthropic');
    const report = await stack.api!.get(`/v1/tasks/${id}/report`);
    expect(report.body).toContain('## Instructions given while it ran');
    expect(report.body).toContain('Only check the pricing page.');
  });
});
