import { AnthropicFake, RedisTestContext, VigilStack } from '@vigil/testing';

/**
 * Money never overspent, through the real Anthropic SDK against a loopback fake that bills usage
 * as the API does: the task pauses before the call that could pass its budget, spends no more
 * than its budget at any moment, and a resume with a higher budget continues from the same step.
 */
describe('a task budget', () => {
  const ctx = new RedisTestContext('budget');
  const fake = new AnthropicFake({ apiKey: 'sk-ant-budget-test' });
  let stack: VigilStack;

  beforeAll(async () => {
    stack = await fake.stackOn(ctx, {
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '5000',
      WATCHER_INTERVAL_MS: '500',
      SLICE_MAX_STEPS: '10',
    });
    await stack.startAll();
  });
  afterAll(() => ctx.close());

  it('pauses before overspending, and resumes from the same step with a higher budget', async () => {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: 40 },
      budgetUsd: 0.3,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    let samples = 0;
    const paused = await stack.waitForTask(
      id,
      (task) => {
        samples++;
        expect(task.spentUsd).toBeLessThanOrEqual(task.budgetUsd);
        return task.status === 'paused';
      },
      30_000,
      'the budget pause',
    );
    expect(samples).toBeGreaterThan(1);
    expect(paused).toMatchObject({ statusReason: 'budget', provider: 'anthropic', retryCount: 0 });
    expect(paused.spentUsd).toBeGreaterThan(0);
    expect(paused.spentUsd).toBeLessThanOrEqual(0.3);
    expect(paused.completedUnits).toBeGreaterThan(0);
    expect(paused.completedUnits).toBeLessThan(40);
    const stepsAtPause = paused.completedUnits!;
    const callsAtPause = fake.calls;

    // A budget below what is spent is refused, in words.
    const low = await stack.api!.post(`/v1/tasks/${id}/resume`, { budgetUsd: 0.01 });
    expect(low.status).toBe(400);
    expect(low.body.message).toMatch(/budgetUsd must be above/);

    const resumed = await stack.api!.post(`/v1/tasks/${id}/resume`, { budgetUsd: 5 });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ budgetUsd: 5, statusReason: null });
    const done = await stack.waitForTask(id, (task) => task.status === 'completed', 60_000, 'completion');
    expect(done.spentUsd).toBeLessThanOrEqual(5);
    expect(done.retryCount).toBe(0);
    expect(fake.calls).toBeGreaterThan(callsAtPause);
    const actions = (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1)).map((raw) => JSON.parse(raw));
    const keys = actions.filter((a) => a.key && !a.error).map((a) => a.key as string);
    // No step repeated: the resume continued where the pause left off.
    expect(keys).toHaveLength(40);
    expect(new Set(keys).size).toBe(40);
    expect(keys.slice(0, stepsAtPause)).toEqual(Array.from({ length: stepsAtPause }, (_, i) => `step:${i}`));
    expect(Number(await ctx.redis.hget(ctx.keys.task(id), 'reservedUsd'))).toBeCloseTo(0, 6);
  });
});

/** The global cap, shared by ten Worker processes reserving at once: never exceeded. */
describe('the global spend limit', () => {
  const ctx = new RedisTestContext('global-cap');
  const fake = new AnthropicFake({ apiKey: 'sk-ant-cap-test' });
  const LIMIT = 0.5;
  let stack: VigilStack;

  beforeAll(async () => {
    stack = await fake.stackOn(ctx, {
      GLOBAL_SPEND_LIMIT_USD: String(LIMIT),
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '10000',
      WATCHER_INTERVAL_MS: '500',
      WORKER_CONCURRENCY: '1',
    });
    await stack.start('api');
    await stack.start('watcher');
    await Promise.all(Array.from({ length: 10 }, () => stack.start('worker')));
  }, 120_000);
  afterAll(() => ctx.close());

  it('pauses every task once the cap is reached, ten Workers reserving at once, and never passes it', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await stack.api!.post('/v1/tasks', { kind: 'noop', input: { steps: 200 } });
      ids.push(created.body.id as string);
    }
    const deadline = Date.now() + 90_000;
    let peak = 0;
    for (;;) {
      peak = Math.max(peak, Number((await ctx.redis.get(ctx.keys.spend())) ?? 0));
      const tasks = await Promise.all(ids.map((id) => stack.tasks.get(id)));
      if (tasks.every((task) => task?.status === 'paused')) {
        expect(tasks.map((task) => task!.statusReason)).toEqual(ids.map(() => 'global_spend_limit'));
        const spent = tasks.reduce((sum, task) => sum + task!.spentUsd, 0);
        expect(spent).toBeGreaterThan(0);
        expect(spent).toBeLessThanOrEqual(LIMIT);
        break;
      }
      if (Date.now() > deadline) throw new Error(`not all paused: ${tasks.map((t) => t?.status).join(',')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(peak).toBeLessThanOrEqual(LIMIT);
    // Every Worker served some of it: ten processes really reserved side by side.
    const workerIds = new Set(
      (await Promise.all(ids.map((id) => stack.tasks.get(id)))).map((task) => task!.workerId),
    );
    expect(workerIds.size).toBeGreaterThan(1);
  }, 120_000);
});
