import { AnthropicFake, RedisTestContext, VigilStack } from '@vigil/testing';

const MODEL_CALL_TIMEOUT_MS = 1500;
const WATCHER_INTERVAL_MS = 60_000;

/**
 * Stalls named for what they are, with real processes: a model call that never returns (the
 * real Anthropic SDK against a loopback fake) is `hung_call`, and is recovered long before the
 * next sweep; a SIGKILLed Worker is `crashed` within seconds at the default sweep interval.
 */
describe('stalls, diagnosed', () => {
  const ctx = new RedisTestContext('stalls');
  const fake = new AnthropicFake({ apiKey: 'sk-ant-stalls-test', hangOnCalls: [4, 5, 6] });
  let stack: VigilStack;

  beforeAll(async () => {
    stack = await fake.stackOn(ctx, {
      RETRY_POLICY: 'opus',
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '30000',
      WATCHER_INTERVAL_MS: String(WATCHER_INTERVAL_MS),
      MODEL_CALL_TIMEOUT_MS: String(MODEL_CALL_TIMEOUT_MS),
    });
    await stack.startAll();
  });
  afterAll(() => ctx.close());

  it('a model call that never returns ends its turn as hung_call, and the retry completes', async () => {
    const created = await stack.api!.post('/v1/tasks', { kind: 'noop', input: { steps: 6 } });
    const id = created.body.id as string;
    // Calls 1-3 answer; calls 4-6 hang: the SDK's own timeout (a third of the deadline) and its two
    // retries, all inside MODEL_CALL_TIMEOUT_MS. Three steps are done when the hang starts.
    const hanging = await stack.waitForTask(
      id,
      (t) => t.completedUnits === 3 && fake.hung.length >= 1,
      20_000,
      'the hang',
    );
    const hangStarted = Date.now();
    const task = await stack.waitForTask(id, (t) => t.status === 'completed', 30_000, 'completion');
    expect(hanging.provider).toBe('anthropic');
    expect(task.retryHistory).toEqual([
      expect.objectContaining({ attempt: 1, model: 'opus', provider: 'anthropic', reason: 'hung_call' }),
    ]);
    expect(task.retryHistory[0].detail).toMatch(/model call opus did not answer within 1500 ms/);
    expect(task.retryHistory[0].costUsd).toBeGreaterThan(0);
    expect(task).toMatchObject({ attempt: 2, retryCount: 1, completedUnits: 6, provider: 'anthropic' });
    // Recovered at the call's deadline, not at the next sweep (60 s away).
    const recovered = (await ctx.redis.xrange(ctx.keys.events(0), '-', '+')).find(
      ([, fields]) => fields[1] === 'task.recovered' && fields[3] === id,
    );
    const recoveredAt = Number(recovered![1][9]);
    expect(recoveredAt - hangStarted).toBeLessThan(MODEL_CALL_TIMEOUT_MS + 3000);
    // Each step was done once.
    const actions = (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1)).map((raw) => JSON.parse(raw));
    const done = actions.filter((a) => a.key && !a.error).map((a) => a.key);
    expect(done.sort()).toEqual(['step:0', 'step:1', 'step:2', 'step:3', 'step:4', 'step:5']);
  });

  it('a SIGKILLed worker is recovered as crashed within seconds, the sweep a minute away', async () => {
    await stack.stopApps('worker');
    const worker = await stack.start('worker', { ANTHROPIC_API_KEY: '' });
    const created = await stack.api!.post('/v1/tasks', { kind: 'noop', input: { steps: 40, stepMs: 100 } });
    const id = created.body.id as string;
    await stack.waitForTask(id, (t) => (t.completedUnits ?? 0) >= 5, 20_000, '5 steps');
    const killed = Date.now();
    worker.signal('SIGKILL');
    await stack.start('worker', { ANTHROPIC_API_KEY: '' });
    const resumed = await stack.waitForTask(
      id,
      (t) => t.attempt === 2 && (t.completedUnits ?? 0) > 5,
      20_000,
      'a resumed step',
    );
    expect(Date.now() - killed).toBeLessThan(8_000);
    expect(resumed.retryHistory).toEqual([
      expect.objectContaining({ reason: 'crashed', provider: 'scripted' }),
    ]);
  });
});
