import { RedisTestContext, VigilStack, newNoopTask, TEST_CLAIM, redisLifecycle } from '@vigil/testing';

/** Three Watcher processes sweep the same 200 stale tasks: each is recovered exactly once. */
describe('many watchers', () => {
  const ctx = new RedisTestContext('watchers');
  const stack = new VigilStack(ctx, {
    HEARTBEAT_INTERVAL_MS: '200',
    STALE_AFTER_MS: '2000',
    WATCHER_INTERVAL_MS: '100',
  });
  const queue = ctx.sliceQueue();
  afterAll(() => ctx.close());

  it('never recovers a task twice, publishes one slice per attempt, emits one recovery each', async () => {
    const ids: string[] = [];
    // Longer ago than this context's own STALE_AFTER_MS (the default, 120 s), which dates the
    // deadline of a claim made here: the Watchers, at 2 s, find every task due at once.
    const longAgo = Date.now() - 600_000;
    const { lifecycle } = redisLifecycle(ctx);
    for (let i = 0; i < 200; i++) {
      const { task } = await stack.tasks.create(`stale-${i}`, newNoopTask(), '', longAgo);
      // Claimed long ago: its heartbeat and its deadline long past.
      await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM, now: longAgo });
      ids.push(task.id);
    }
    await Promise.all([stack.start('watcher'), stack.start('watcher'), stack.start('watcher')]);
    for (const id of ids)
      await stack.waitForTask(id, (t) => t.status === 'queued' && t.attempt === 2, 30_000, 'recovery');
    // Let all three keep sweeping past STALE_AFTER_MS (2 s), when the re-queued tasks come due
    // for a look again: nothing more may happen to a task that is now healthy-queued.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed']);
    const events = (await ctx.redis.xrange(ctx.keys.events(0), '-', '+')).map(([, fields]) => fields);
    for (const id of ids) {
      const task = (await stack.tasks.get(id))!;
      expect([task.status, task.attempt, task.retryHistory.length]).toEqual(['queued', 2, 1]);
      // Slice 1 was claimed (and failed with its attempt): the recovery's slice is the second.
      expect(jobs.filter((job) => job.data.taskId === id).map((job) => job.id)).toEqual([`${id}-a2-s2`]);
      expect(events.filter((f) => f[3] === id && f[1] === 'task.recovered')).toHaveLength(1);
    }
  });
});
