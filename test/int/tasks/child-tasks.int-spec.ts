import { RedisTestContext, newNoopTask, TEST_CLAIM, redisLifecycle } from '@vigil/testing';
import { ChildKeys, ChildTaskRepository, TaskRepository } from '@vigil/tasks';

/**
 * Children of one parent against the real Redis (docs/missions.md, "Child missions"):
 * register-child.lua under contention, a child's end freeing its place in transition-task.lua,
 * the parent parked and queued by its last child — on 4 shards, so the child ids must be searched.
 */
describe('child tasks', () => {
  const ctx = new RedisTestContext('children', { SHARDS: '4', MAX_PARALLEL_CHILDREN: '3' });
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const children = new ChildTaskRepository(ctx.redis, ctx.keys, ctx.config);
  const childKeys = new ChildKeys(ctx.keys);
  const { lifecycle } = redisLifecycle(ctx);
  let seq = 0;

  afterAll(() => ctx.close());

  async function parentRunning() {
    const id = `parent-${++seq}`;
    const { task } = await tasks.create(id, newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    return task;
  }

  async function createChildren(parentId: string, n: number): Promise<string[]> {
    const ids = Array.from({ length: n }, (_, i) => children.childId(parentId, `step:${i}`));
    await Promise.all(ids.map((id) => tasks.create(id, newNoopTask({ parentId }))));
    return ids;
  }

  const runningCount = async (parentId: string) => ctx.redis.scard(childKeys.running(parentId));

  it('derives child ids on the parent shard, the same for the same step', () => {
    for (let p = 0; p < 20; p++) {
      const parent = `p-${p}`;
      const id = children.childId(parent, 'subtask:abc');
      expect(ctx.keys.shardOf(id)).toBe(ctx.keys.shardOf(parent));
      expect(children.childId(parent, 'subtask:abc')).toBe(id);
      expect(children.childId(parent, 'subtask:abd')).not.toBe(id);
    }
  });

  it('registers 100 concurrent children of one parent: all registered, 3 running, the rest held in order', async () => {
    const parent = await parentRunning();
    const ids = await createChildren(parent.id, 100);
    const registrations = await Promise.all(ids.map((id) => children.register(parent.id, id)));

    expect(registrations.every((r) => r.registered && r.created)).toBe(true);
    const placements = registrations.map((r) => (r.registered ? r.placement : 'refused'));
    expect(placements.filter((p) => p === 'running')).toHaveLength(3);
    expect(placements.filter((p) => p === 'queued')).toHaveLength(97);
    expect(new Set(await children.ids(parent.id))).toEqual(new Set(ids));
    expect((await tasks.get(parent.id))!.children).toEqual({ total: 100, running: 3, done: 0 });
    // Held children are out of the deadline index: no sweep publishes them.
    const deadline = await ctx.redis.zrange(ctx.keys.deadlineIndex(ctx.keys.shardOf(parent.id)), '0', '-1');
    const held = await ctx.redis.lrange(childKeys.held(parent.id), 0, -1);
    expect(held).toHaveLength(97);
    expect(held.filter((id) => deadline.includes(id))).toEqual([]);
    expect(await children.isHeld({ id: held[0], parentId: parent.id })).toBe(true);

    // A second registration changes nothing.
    const again = await children.register(parent.id, ids[0]);
    expect(again).toMatchObject({ registered: true, created: false });
    expect((await tasks.get(parent.id))!.children?.total).toBe(100);
  });

  it('frees a place when a child ends: never more than 3 running, and the last child queues its waiting parent', async () => {
    const parent = await parentRunning();
    const ids = await createChildren(parent.id, 12);
    await Promise.all(ids.map((id) => children.register(parent.id, id)));
    // The parent's turn ends waiting on its children: out of the deadline index.
    const parked = await lifecycle.awaitChildren(parent, { attempt: 1, slice: 1 });
    expect(parked.status).toBe('waiting_on_tool');
    const shard = ctx.keys.shardOf(parent.id);
    expect(await ctx.redis.zscore(ctx.keys.deadlineIndex(shard), parent.id)).toBeNull();

    const released: string[] = [];
    let maxRunning = 0;
    let parentDue: unknown;
    for (let round = 0; round < 20; round++) {
      const running = await ctx.redis.smembers(childKeys.running(parent.id));
      if (running.length === 0) break;
      // The running children end at once, concurrently.
      const ends = await Promise.all(
        running.map(async (id) => lifecycle.cancelChild((await tasks.get(id))!, { onlyQueued: true })),
      );
      maxRunning = Math.max(maxRunning, await runningCount(parent.id));
      for (const end of ends)
        for (const due of end.due) {
          if (due.taskId === parent.id) parentDue = due;
          else released.push(due.taskId);
        }
    }
    expect(maxRunning).toBeLessThanOrEqual(3);
    // Released in registration order, each once, all due in the deadline index.
    expect(released).toEqual(ids.slice(3));
    // Its next slice: the parent ran one before it waited.
    expect(parentDue).toEqual({ taskId: parent.id, attempt: 1, slice: 2 });
    const after = (await tasks.get(parent.id))!;
    expect(after).toMatchObject({
      status: 'queued',
      statusReason: null,
      children: { total: 12, running: 0, done: 12 },
    });
    expect(await ctx.redis.zscore(ctx.keys.deadlineIndex(shard), parent.id)).not.toBeNull();
  });

  it('queues a parent at once when its children ended before its turn did', async () => {
    const parent = await parentRunning();
    const [child] = await createChildren(parent.id, 1);
    await children.register(parent.id, child);
    const ended = await lifecycle.stop((await tasks.get(child))!);
    // The parent is still running: nothing to queue yet.
    expect(ended.due).toEqual([]);
    const parked = await lifecycle.awaitChildren(parent, { attempt: 1, slice: 1 });
    expect(parked.status).toBe('queued');
    expect((await tasks.get(parent.id))!.statusReason).toBeNull();
  });

  it('releases nothing once the parent has ended, and refuses new children', async () => {
    const parent = await parentRunning();
    const ids = await createChildren(parent.id, 5);
    await Promise.all(ids.map((id) => children.register(parent.id, id)));
    await lifecycle.stop(parent);
    const running = await ctx.redis.smembers(childKeys.running(parent.id));
    const ends = await Promise.all(running.map(async (id) => lifecycle.stop((await tasks.get(id))!)));
    expect(ends.flatMap((end) => end.due)).toEqual([]);
    const late = children.childId(parent.id, 'step:late');
    await tasks.create(late, newNoopTask({ parentId: parent.id }));
    expect(await children.register(parent.id, late)).toEqual({ registered: false, reason: 'parent_ended' });
  });
});
