import { type AppProcess, RedisTestContext, VigilStack } from '@vigil/testing';

const BASE = { API_KEYS: 'acme:test-key-0001', WATCHER_INTERVAL_MS: '300', SLICE_MAX_STEPS: '10' };

async function actionsOf(
  ctx: RedisTestContext,
  id: string,
): Promise<{ attempt: number; startedAt: number; durationMs: number }[]> {
  return (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1)).map((raw) => JSON.parse(raw));
}

describe('telling crashed workers from hung ones', () => {
  const ctx = new RedisTestContext('detection');
  afterAll(() => ctx.close());

  /**
   * Runs `test` on a stack of its own with the heartbeat and staleness timings `env`, an API, a
   * Watcher and a Worker started and a noop task of `input` created; stops the stack after.
   */
  async function onStack(
    env: { HEARTBEAT_INTERVAL_MS: string; STALE_AFTER_MS: string },
    input: { steps: number; stepMs: number },
    test: (stack: VigilStack, worker: AppProcess, id: string) => Promise<void>,
  ): Promise<void> {
    const stack = new VigilStack(ctx, { ...BASE, ...env });
    try {
      await stack.startAll(['api', 'watcher']);
      const worker = await stack.start('worker');
      const id = (await stack.api!.post('/v1/tasks', { kind: 'noop', input })).body.id as string;
      await test(stack, worker, id);
    } finally {
      await stack.stopAll();
    }
  }

  it('a SIGKILLed worker is recovered at the next sweeps, long before STALE_AFTER_MS (60 s)', async () => {
    const timings = { HEARTBEAT_INTERVAL_MS: '500', STALE_AFTER_MS: '60000' };
    await onStack(timings, { steps: 200, stepMs: 100 }, async (stack, worker, id) => {
      await stack.waitForTask(id, (t) => (t.completedUnits ?? 0) >= 5, 20_000, '5 steps');
      const killedAt = Date.now();
      worker.signal('SIGKILL');
      const recovered = await stack.waitForTask(id, (t) => t.attempt === 2, 30_000, 'recovery');
      expect(recovered.retryHistory[0]).toMatchObject({ reason: 'crashed', model: 'opus' });
      // Heartbeat 500 ms, sweeps every 300 ms: seconds, where staleness alone would take 60 s.
      expect(recovered.retryHistory[0].at - killedAt).toBeLessThan(10_000);
    });
  });

  it('a SIGSTOPped worker is recovered only after STALE_AFTER_MS, and on SIGCONT all its writes are refused', async () => {
    const timings = { HEARTBEAT_INTERVAL_MS: '200', STALE_AFTER_MS: '3000' };
    await onStack(timings, { steps: 200, stepMs: 100 }, async (stack, worker, id) => {
      await stack.waitForTask(id, (t) => (t.completedUnits ?? 0) >= 5, 20_000, '5 steps');
      worker.signal('SIGSTOP');
      const frozen = await stack.tasks.get(id);
      const recovered = await stack.waitForTask(id, (t) => t.attempt === 2, 30_000, 'recovery');
      const recoveredAt = recovered.retryHistory[0].at;
      expect(recovered.retryHistory[0]).toMatchObject({ reason: 'frozen' });
      expect(recoveredAt - (frozen!.lastHeartbeatAt ?? 0)).toBeGreaterThanOrEqual(3000);
      const actionsBefore = (await actionsOf(ctx, id)).length;

      worker.signal('SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const zombieWrites = (await actionsOf(ctx, id))
        .slice(actionsBefore)
        .filter((action) => action.attempt === 1);
      expect(zombieWrites).toEqual([]);
      const after = await stack.tasks.get(id);
      expect(after!.attempt).toBe(2);
      // The woken process may go on as a healthy worker for attempt 2, never as attempt 1.
      expect(after!.retryHistory).toHaveLength(1);
    });
  });

  it('a slow tool that keeps heartbeating for 5× STALE_AFTER_MS is never recovered', async () => {
    const timings = { HEARTBEAT_INTERVAL_MS: '200', STALE_AFTER_MS: '1000' };
    await onStack(timings, { steps: 2, stepMs: 5000 }, async (stack, _worker, id) => {
      const task = await stack.waitForTask(id, (t) => t.status === 'completed', 30_000, 'completion');
      expect(task.attempt).toBe(1);
      expect(task.retryHistory).toEqual([]);
      const events = (await ctx.redis.xrange(ctx.keys.events(0), '-', '+')).filter(([, f]) => f[3] === id);
      expect(events.filter(([, f]) => f[1] === 'task.recovered')).toHaveLength(0);
      expect(events.filter(([, f]) => f[1] === 'task.started')).toHaveLength(1);
    });
  });
});
