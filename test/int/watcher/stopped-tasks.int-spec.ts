import { SupervisorSweep } from '@vigil/supervisor';
import { RedisTestContext, newNoopTask, TEST_CLAIM, WatcherHarness } from '@vigil/testing';
import { IllegalTransitionError, TaskRepository, TaskStatus } from '@vigil/tasks';

/** A stopped task is never recovered, verified or retried, whatever a Watcher saw before the stop. */
describe('stopped tasks and the watcher', () => {
  const ctx = new RedisTestContext('stopped', { STALE_AFTER_MS: '1000', HEARTBEAT_INTERVAL_MS: '100' });
  const watcher = new WatcherHarness(ctx);
  const { tasks, lifecycle } = watcher;

  beforeAll(() => watcher.start());
  afterAll(() => ctx.close());

  it.each<[string, TaskStatus[]]>([
    ['stale while running', ['running']],
    ['claimed done', ['running', 'verifying']],
    ['failed a turn', ['running', 'retrying']],
    ['queued with its job gone', []],
  ])('a task %s, then stopped, is left alone', async (_, path) => {
    const longAgo = Date.now() - 60_000;
    const { task } = await tasks.create(`stopped-${path.join('-') || 'queued'}`, newNoopTask(), '', longAgo);
    const lease = { owner: 'racing-watcher', expiresAt: Date.now() + 60_000 };
    for (const status of path) {
      const move = { attempt: 1, now: longAgo };
      if (status === 'running') await lifecycle.claimSlice(task, { ...move, ...TEST_CLAIM });
      if (status === 'verifying') await lifecycle.claimDone(task, { ...move, claim: 'done' });
      if (status === 'retrying')
        await lifecycle.failAttempt(task, { ...move, reason: 'tool_error', during: 'slice' });
    }
    const seen = (await tasks.get(task.id))!;
    await lifecycle.stop(task);
    const before = await ctx.redis.hgetall(ctx.keys.task(task.id));
    const events = await ctx.redis.xlen(ctx.keys.events(0));

    // The Watcher acts on what it saw before the stop, as a racing replica would: its read of the
    // record returns the copy taken before the stop, then every write it makes meets the stop.
    const { supervisor, app } = watcher;
    const read = jest.spyOn(app.get(TaskRepository, { strict: false }), 'get');
    for (const suspicion of ['deadline', 'verifying', 'expired', 'worker_gone'] as const) {
      // (A queued task's decision needs no transition, so it reads the record as it is now.)
      if (seen.status !== 'queued') read.mockResolvedValueOnce(seen);
      expect(await supervisor.inspect(task.id, suspicion)).toBe('nothing');
    }
    read.mockRestore();
    await app.get(SupervisorSweep).tick(Date.now() + 10 * 3_600_000);
    // Writes from the copy seen before the stop are refused by the script itself.
    if (seen.status !== 'queued') {
      await expect(
        lifecycle.recover(seen, { reason: 'frozen', detail: 'a stale copy', lease }),
      ).rejects.toBeInstanceOf(IllegalTransitionError);
    }
    await expect(
      lifecycle.requeueForRetry(seen, {
        model: 'opus',
        retryContext: { retryNumber: 1, reason: 'frozen', lastVerifiedStep: 0 },
        lease,
      }),
    ).rejects.toBeInstanceOf(IllegalTransitionError);
    expect(await ctx.redis.hgetall(ctx.keys.task(task.id))).toEqual(before);
    expect(await ctx.redis.xlen(ctx.keys.events(0))).toBe(events);
    expect(seen.status).toBe(path[path.length - 1] ?? 'queued');
  });
});
