import { ControlSignal, ControlSignals } from '@vigil/tasks';
import { RedisTestContext, newNoopTask, TEST_CLAIM, WatcherHarness } from '@vigil/testing';

/** The Watcher's side of a call past its deadline in a Worker that still heartbeats. */
describe('a call past its deadline', () => {
  const ctx = new RedisTestContext('hung-call', { HEARTBEAT_INTERVAL_MS: '1000', STALE_AFTER_MS: '60000' });
  const watcher = new WatcherHarness(ctx);
  const { tasks, lifecycle } = watcher;
  const signals: ControlSignal[] = [];
  let unsubscribe: () => Promise<void>;

  beforeAll(async () => {
    await watcher.start();
    unsubscribe = await new ControlSignals(ctx.redis, ctx.keys).subscribe((signal) => signals.push(signal));
  });
  afterAll(async () => {
    await unsubscribe();
    await ctx.close();
  });

  it('is found through the call index, its Worker is told to abort it, and if it does not, the task is recovered as frozen', async () => {
    const { task } = await tasks.create('hung-1', newNoopTask({ input: { steps: 5 }, totalUnits: 5 }));
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const now = Date.now();
    const inFlight = { kind: 'model' as const, name: 'opus', since: now - 5000, deadlineAt: now - 100 };
    await tasks.heartbeat(task.id, 1, { inFlight, loopLagMs: 3 }, false, now);
    expect(await ctx.redis.zscore(ctx.keys.callDeadlineIndex(0), task.id)).toBe(String(now - 100));
    const supervisor = watcher.supervisor;

    // Fresh heartbeat, call overran: not a restart, a request to abort the call.
    expect(await supervisor.inspect(task.id, 'hung_call', now)).toBe('abort_requested');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(signals).toEqual([{ taskId: task.id, action: 'abort_call', attempt: 1 }]);
    const grace = 2 * ctx.config.heartbeatIntervalMs;
    expect(Number(await ctx.redis.zscore(ctx.keys.callDeadlineIndex(0), task.id))).toBe(now - 100 + grace);
    const stillRunning = (await tasks.get(task.id))!;
    expect(stillRunning).toMatchObject({ status: 'running', attempt: 1, loopLagMs: 3, inFlight });

    // The Worker did not abort it within the grace period: recovered, as frozen.
    expect(await supervisor.inspect(task.id, 'hung_call', now + grace)).toBe('recovered');
    const recovered = (await tasks.get(task.id))!;
    expect(recovered).toMatchObject({ status: 'queued', attempt: 2, retryCount: 1, inFlight: null });
    expect(recovered.retryHistory[0]).toMatchObject({ reason: 'frozen' });
    expect(recovered.retryHistory[0].detail).toMatch(
      /model call opus overran its deadline by \d+ s and the worker did not abort it/,
    );
    expect(await ctx.redis.zscore(ctx.keys.callDeadlineIndex(0), task.id)).toBeNull();
  });

  it('leaves alone a Worker that heartbeats with a call still inside its deadline', async () => {
    const { task } = await tasks.create('hung-2', newNoopTask({ input: { steps: 5 }, totalUnits: 5 }));
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const now = Date.now();
    await tasks.heartbeat(
      task.id,
      1,
      { inFlight: { kind: 'tool', name: 'noop_step', since: now, deadlineAt: now + 60_000 } },
      false,
      now,
    );
    expect(await watcher.supervisor.inspect(task.id, 'deadline', now + 30_000)).toBe('hands_off');
    expect((await tasks.get(task.id))!).toMatchObject({ status: 'running', attempt: 1 });
  });
});
