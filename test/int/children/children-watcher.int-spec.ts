import { RedisTestContext, newNoopTask, TEST_CLAIM, WatcherHarness } from '@vigil/testing';
import { ChildTaskRepository } from '@vigil/tasks';

/**
 * The Watcher and children (docs/missions.md, "Child missions"), with the real supervisor
 * module, Redis and slice queue: a parent waiting on its children is never stale, however old its
 * last heartbeat and whether or not its Worker is gone; a held child is never published; a child
 * whose creator died before registering it is registered by the sweep, then published.
 */
describe('the Watcher and child tasks', () => {
  const ctx = new RedisTestContext('children-watcher', { MAX_PARALLEL_CHILDREN: '1' });
  const watcher = new WatcherHarness(ctx);
  const { tasks, lifecycle } = watcher;
  const children = new ChildTaskRepository(ctx.redis, ctx.keys, ctx.config);
  const queue = ctx.sliceQueue();

  beforeAll(() => watcher.start());
  afterAll(() => ctx.close());

  it('leaves a parent waiting on children alone: never stale, never recovered, held children unpublished', async () => {
    const long = Date.now() - 600_000;
    const { task: parent } = await tasks.create('parent-waits', newNoopTask(), '', long);
    await lifecycle.claimSlice(parent, { attempt: 1, ...TEST_CLAIM, workerId: 'gone-worker', now: long });
    const ids = ['a', 'b'].map((step) => children.childId(parent.id, step));
    for (const id of ids) await tasks.create(id, newNoopTask({ parentId: parent.id }), '', long);
    const placements = [];
    for (const id of ids) placements.push(await children.register(parent.id, id, long));
    expect(placements.map((p) => p.registered && p.placement)).toEqual(['running', 'queued']);
    await lifecycle.awaitChildren(parent, { attempt: 1, slice: 1, now: long });

    const supervisor = watcher.supervisor;
    for (const suspicion of ['deadline', 'worker_gone', 'hung_call', 'expired'] as const)
      expect(await supervisor.inspect(parent.id, suspicion, Date.now(), { workerGoneSince: long })).toBe(
        'nothing',
      );
    expect(await tasks.get(parent.id)).toMatchObject({
      status: 'waiting_on_tool',
      statusReason: 'children',
      attempt: 1,
      retryHistory: [],
    });
    // Out of the deadline index: the sweeps never even look at it.
    expect(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), parent.id)).toBeNull();

    // The held child waits for its place; the released one's missing job is republished.
    expect(await supervisor.inspect(ids[1], 'deadline')).toBe('job_waiting');
    expect(await queue.getJob(`${ids[1]}-a1-s1`)).toBeUndefined();
    // Even one put back in the deadline index (a resume by hand) is deferred, not published.
    await ctx.redis.zadd(ctx.keys.deadlineIndex(0), long, ids[1]);
    expect(await supervisor.inspect(ids[1], 'deadline')).toBe('job_waiting');
    expect(Number(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), ids[1]))).toBeGreaterThan(Date.now());
    expect(await queue.getJob(`${ids[1]}-a1-s1`)).toBeUndefined();
    expect(await supervisor.inspect(ids[0], 'deadline')).toBe('republished');
    expect(await queue.getJob(`${ids[0]}-a1-s1`)).toBeDefined();
  });

  it('registers a child whose creator died before registering it, then publishes it', async () => {
    const { task: parent } = await tasks.create('parent-orphan', newNoopTask());
    await lifecycle.claimSlice(parent, { attempt: 1, ...TEST_CLAIM });
    const id = children.childId(parent.id, 'orphan');
    await tasks.create(id, newNoopTask({ parentId: parent.id }), '', Date.now() - 600_000);
    expect(await children.isUnregistered({ id, parentId: parent.id })).toBe(true);

    expect(await watcher.supervisor.inspect(id, 'deadline')).toBe('republished');
    expect(await children.ids(parent.id)).toEqual([id]);
    expect((await tasks.get(parent.id))!.children).toEqual({ total: 1, running: 1, done: 0 });
    expect(await queue.getJob(`${id}-a1-s1`)).toBeDefined();
  });
});
