import { RedisTestContext, VigilStack } from '@vigil/testing';

const FAST = {
  HEARTBEAT_INTERVAL_MS: '200',
  STALE_AFTER_MS: '2000',
  WATCHER_INTERVAL_MS: '250',
  LIVENESS_INTERVAL_MS: '100',
  SLICE_MAX_STEPS: '10',
};

describe('recovery with real processes', () => {
  const ctx = new RedisTestContext('recovery');
  const stack = new VigilStack(ctx, FAST);

  beforeAll(async () => {
    await stack.start('api');
    await stack.start('watcher');
  });
  afterAll(() => ctx.close());

  it('a SIGKILLed worker: the task resumes on the next attempt from the log, completes verified, models per policy', async () => {
    const worker = await stack.start('worker');
    const created = await stack.api!.post('/v1/tasks', { kind: 'noop', input: { steps: 60, stepMs: 30 } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await stack.waitForTask(id, (task) => (task.completedUnits ?? 0) >= 15, 20_000, '15 steps');
    worker.signal('SIGKILL');
    await stack.start('worker');
    const task = await stack.waitForTask(id, (t) => t.status === 'completed', 30_000, 'completion');
    expect(task.attempt).toBe(2);
    expect(task.retryHistory).toEqual([
      expect.objectContaining({
        attempt: 1,
        model: 'opus',
        provider: 'scripted',
        result: 'failed',
        reason: 'crashed',
      }),
    ]);
    expect(task.retryCount).toBe(1);
    // Attempt 1 ran on FIRST_MODEL; retry 1 runs on the policy's first entry (opus, gemini, …).
    expect(task.model).toBe('opus');
    expect(task.provider).toBe('scripted');
    expect(task.verification?.passed).toBe(true);
    expect(task.completedUnits).toBe(60);
    const actions = (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1)).map((raw) => JSON.parse(raw));
    const succeeded = actions.filter((action) => action.key && !action.error).map((action) => action.key);
    // Resumed from the log: at most the one step in flight at the kill is repeated.
    expect(new Set(succeeded).size).toBe(60);
    expect(succeeded.length - 60).toBeLessThanOrEqual(1);
    expect(actions.some((action) => action.attempt === 2)).toBe(true);
    // Operators see the same story in Prometheus.
    const metricsOf = async (app: string) =>
      (await fetch(`http://127.0.0.1:${stack.processes.find((p) => p.name === app)!.port}/metrics`)).text();
    expect(await metricsOf('watcher')).toMatch(
      /vigil_watcher_decisions_total\{decision="recovered"[^}]*\} [1-9]/,
    );
    expect(await metricsOf('watcher')).toMatch(/vigil_sweep_duration_seconds_count\{[^}]*\} [1-9]/);
    const survivor = stack.processes.filter((p) => p.name === 'worker').at(-1)!;
    const workerMetrics = await (await fetch(`http://127.0.0.1:${survivor.port}/metrics`)).text();
    expect(workerMetrics).toMatch(/vigil_slices_total\{outcome="verifying"[^}]*\} 1/);
  });

  it('retries follow the policy, one model per retry, when every worker dies, ending in an honest failure', async () => {
    await stack.stopApps('worker');
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: 50, stepMs: 200 },
      agent: { policy: ['opus', 'gemini', 'opus'] },
    });
    const id = created.body.id as string;
    for (let attempt = 1; attempt <= 4; attempt++) {
      const worker = await stack.start('worker');
      await stack.waitForTask(
        id,
        (t) => t.attempt === attempt && t.status === 'running',
        20_000,
        `attempt ${attempt} running`,
      );
      worker.signal('SIGKILL');
    }
    const task = await stack.waitForTask(id, (t) => t.status === 'failed', 20_000, 'failure');
    // Attempt 1 on FIRST_MODEL (opus), then retry k on policy[k - 1]: opus, gemini, opus.
    expect(task.retryHistory.map((entry) => [entry.attempt, entry.model, entry.reason])).toEqual([
      [1, 'opus', 'crashed'],
      [2, 'opus', 'crashed'],
      [3, 'gemini', 'crashed'],
      [4, 'opus', 'crashed'],
    ]);
    // Three retries ran; the fourth failure ended the task.
    expect(task.retryCount).toBe(3);
    expect(task.failure).toMatchObject({
      reason: 'policy_exhausted',
      duplicatesCreated: 0,
      retryHistory: expect.any(Array),
      nextSteps: expect.any(Array),
    });
    const events = (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
      .filter(([, f]) => f[3] === id)
      .map(([, f]) => f[1]);
    expect(events.filter((type) => type === 'task.failed')).toHaveLength(1);
    expect(events.filter((type) => type === 'task.recovered')).toHaveLength(3);
    // Nothing is retried after the end.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await stack.tasks.get(id))?.attempt).toBe(5);
    expect((await stack.tasks.get(id))?.status).toBe('failed');
  });
});
