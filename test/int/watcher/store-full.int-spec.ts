import type { INestApplicationContext } from '@nestjs/common';
import { Registry } from 'prom-client';
import { ObjectKeys } from '@vigil/object-store';
import { METRICS_REGISTRY } from '@vigil/platform';
import { StoreWatch, SupervisorSweep } from '@vigil/supervisor';
import { TaskRepository } from '@vigil/tasks';
import {
  MemoryObjectStore,
  newNoopTask,
  RedisTestContext,
  redisLifecycle,
  SmallRedis,
  WatcherHarness,
  TEST_CLAIM,
  retentionSweepOn,
} from '@vigil/testing';

const STALE_AFTER_MS = 2_000;

/** The Watcher and a full Redis (docs/operations.md, "A full Redis"): it recovers nothing, then continues. */
describe('the Watcher while Redis is full', () => {
  let small: SmallRedis;
  let ctx: RedisTestContext;
  let tasks: TaskRepository;
  let app: INestApplicationContext;

  beforeAll(async () => {
    small = await SmallRedis.start({ portOffset: 2 });
    ctx = new RedisTestContext('store-full-watcher', {
      REDIS_URL: small.url,
      HEARTBEAT_INTERVAL_MS: '500',
      STALE_AFTER_MS: String(STALE_AFTER_MS),
      TASK_RETENTION_MS: '0',
    });
    tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
    app = (await WatcherHarness.start(ctx)).app;
  });
  afterAll(async () => {
    await small?.free();
    await ctx?.close();
    await small?.stop();
  });

  const gauge = async (name: string) => {
    const metric = await app.get<Registry>(METRICS_REGISTRY).getSingleMetric(name)?.get();
    return metric?.values[0]?.value;
  };
  const eventsOf = async (id: string) =>
    (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
      .map(([, fields]) =>
        Object.fromEntries(fields.flatMap((_, i) => (i % 2 ? [] : [[fields[i], fields[i + 1]]]))),
      )
      .filter((event) => event.taskId === id);

  it('names the store full and touches nothing; once writes succeed, a task it silenced continues with no retry, an older silence is recovered', async () => {
    const { lifecycle } = redisLifecycle(ctx);
    const started = Date.now();
    const silenced = (await tasks.create('silenced', newNoopTask())).task;
    await lifecycle.claimSlice(silenced, { attempt: 1, ...TEST_CLAIM, now: started });
    // Already silent for a while before Redis filled: a frozen Worker, whatever the store did next.
    const frozen = (await tasks.create('frozen-before', newNoopTask())).task;
    await lifecycle.claimSlice(frozen, { attempt: 1, ...TEST_CLAIM, now: started - 10 * STALE_AFTER_MS });
    const sweep = app.get(SupervisorSweep);
    const store = app.get(StoreWatch);
    expect(await store.look(started)).toEqual({ full: false });

    await small.fill();
    const whileFull = await sweep.tick(started + 2 * STALE_AFTER_MS);
    expect(whileFull.decisions).toEqual({ store_full: 2 });
    expect(await gauge('vigil_store_full')).toBe(1);
    expect(await gauge('vigil_redis_used_bytes')).toBeGreaterThan(0);
    for (const id of [silenced.id, frozen.id])
      expect(await tasks.get(id)).toMatchObject({
        status: 'running',
        attempt: 1,
        retryCount: 0,
        retryHistory: [],
      });

    await small.free();
    const freedAt = started + 3 * STALE_AFTER_MS;
    const after = await sweep.tick(freedAt);
    expect(after.decisions).toEqual({ continued_after_store_full: 1, recovered: 1 });
    expect(await gauge('vigil_store_full')).toBe(0);
    expect(store.evidence()).toEqual({ full: false, lastFullWindow: { since: started, until: freedAt } });
    expect(JSON.parse((await ctx.redis.get(`${ctx.prefix}:store-full`))!)).toEqual({
      since: started,
      until: freedAt,
    });

    const continued = (await tasks.get(silenced.id))!;
    expect(continued).toMatchObject({ status: 'queued', attempt: 2, retryCount: 0, retryHistory: [] });
    const events = await eventsOf(silenced.id);
    expect(events.map((event) => event.type)).not.toContain('task.recovered');
    const handOff = events.find((event) => event.type === 'task.progress' && event.from === 'running');
    expect(handOff).toMatchObject({ status: 'queued', attempt: '2' });
    expect(JSON.parse(handOff!.data)).toEqual({
      handedOn: 'store_full',
      detail: expect.stringMatching(/^no heartbeat for 6 s while Redis was full \(about 6 s, until /),
    });
    const job = await ctx.sliceQueue().getJob(`${silenced.id}-a2-s2`);
    expect(job?.data).toEqual({ taskId: silenced.id, attempt: 2, slice: 2, reason: 'store_full' });

    const recovered = (await tasks.get(frozen.id))!;
    expect(recovered).toMatchObject({ attempt: 2, retryCount: 1 });
    expect(recovered.retryHistory).toEqual([expect.objectContaining({ attempt: 1, reason: 'frozen' })]);
  });

  it('counts a spell between two looks: writes refused while the store was under its limit at both', async () => {
    // A Watcher of its own, with no spell recorded before.
    await ctx.redis.del(ctx.keys.storeFullWindow());
    const store = new StoreWatch(ctx.redis, ctx.keys, new Registry());
    const first = Date.now();
    await store.look(first);
    await small.fill();
    await expect(tasks.create('refused-between-looks', newNoopTask())).rejects.toThrow(/full/);
    await small.free();
    // Under its limit now, but a write was refused since the last look: full, until a clean look.
    expect(await store.look(first + 1_000)).toMatchObject({ full: true });
    expect(await store.look(first + 2_000)).toEqual({
      full: false,
      lastFullWindow: { since: first, until: first + 2_000 },
    });
  });

  it('still runs retention: a finished task is archived and its keys deleted, freeing the full Redis', async () => {
    const { lifecycle } = redisLifecycle(ctx);
    const { task } = await tasks.create('finished-before', newNoopTask());
    await lifecycle.stop(task);
    const store = new MemoryObjectStore();
    const { sweep: retention } = retentionSweepOn(ctx, lifecycle, store);
    await small.fill();
    try {
      expect(await retention.tick(Date.now() + 1)).toMatchObject({ archived: 1, failed: 0 });
      expect(await ctx.redis.exists(ctx.keys.task(task.id))).toBe(0);
      expect(await store.get(ObjectKeys.archive('acme', task.id))).not.toBeNull();
    } finally {
      await small.free();
    }
  });
});
