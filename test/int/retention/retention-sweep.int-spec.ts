import { loadConfig } from '@vigil/config';
import { ObjectKeys, type ObjectStore } from '@vigil/object-store';
import { decodeArchive, TaskRepository } from '@vigil/tasks';
import { taskRootSpanId, taskTraceId, type Tracing } from '@vigil/telemetry';
import {
  memoryTracing,
  MemoryObjectStore,
  newNoopTask,
  RedisTestContext,
  retentionSweepOn,
  TaskHarness,
} from '@vigil/testing';

/** Every Redis key under the context's prefix that names this task. */
async function keysOf(ctx: RedisTestContext, taskId: string): Promise<string[]> {
  return (await ctx.redis.keys(`${ctx.prefix}*`)).filter((key) => key.includes(taskId));
}

/** Every sorted set and list under the prefix that still lists this task id. */
async function indexesListing(ctx: RedisTestContext, taskId: string): Promise<string[]> {
  const found: string[] = [];
  for (const key of await ctx.redis.keys(`${ctx.prefix}*idx*`))
    if ((await ctx.redis.type(key)) === 'zset' && (await ctx.redis.zscore(key, taskId)) !== null)
      found.push(key);
  return found;
}

describe('RetentionSweep', () => {
  const ctx = new RedisTestContext('retention', {
    TASK_RETENTION_MS: '0',
    FAILED_TASK_RETENTION_MS: '3600000',
  });
  const { tasks, lifecycle } = new TaskHarness(ctx);
  afterAll(() => ctx.close());

  function sweepWith(store: ObjectStore, env: Record<string, string> = {}, tracing?: Tracing) {
    // Tasks this file leaves active stay on the shard: pacing has its own test below.
    const config = loadConfig({
      ...process.env,
      ...ctx.env(),
      TASK_RETENTION_MS: '0',
      ARCHIVE_BUSY_LAG_MS: '0',
      ...env,
    });
    return retentionSweepOn(ctx, lifecycle, store, { config, owner: 'w1', tracing });
  }

  async function finished(overrides: Parameters<typeof newNoopTask>[0] = {}): Promise<string> {
    const id = TaskRepository.newTaskId();
    const { task } = await tasks.create(id, newNoopTask(overrides));
    await lifecycle.stop(task);
    return id;
  }

  it('archives a finished task whole, checks it, and leaves none of its keys or index entries in Redis', async () => {
    const store = new MemoryObjectStore();
    const { sweep, writer } = sweepWith(store);
    const id = await finished();
    const live = await tasks.create(TaskRepository.newTaskId(), newNoopTask());
    const before = await writer.collect(id, 0);
    expect(before?.record.status).toBe('cancelled');
    // What its last model call streamed: a reconnect window, gone with the task.
    await ctx.redis.xadd(ctx.keys.liveOutput(id), '*', 'type', 'model.delta', 'text', 'Done.');

    const report = await sweep.tick(Date.now() + 1);

    expect(report).toMatchObject({ archived: 1, failed: 0 });
    expect(await keysOf(ctx, id)).toEqual([]);
    expect(await indexesListing(ctx, id)).toEqual([]);
    const bytes = await store.get(ObjectKeys.archive('acme', id));
    const archived = decodeArchive(id, bytes!);
    expect({ ...archived, expiredAt: 0 }).toEqual(before);
    // A live task is never touched.
    expect((await tasks.get(live.task.id))?.status).toBe('queued');
  });

  it('keeps a failed task for FAILED_TASK_RETENTION_MS', async () => {
    const { sweep } = sweepWith(new MemoryObjectStore(), { FAILED_TASK_RETENTION_MS: '3600000' });
    const id = TaskRepository.newTaskId();
    const { task } = await tasks.create(id, newNoopTask());
    await lifecycle.giveUp(
      { ...task, status: 'queued' },
      {
        lease: { owner: 'w1', expiresAt: Date.now() + 1000 },
        failure: { reason: 'limit', detail: 'test', completedUnits: 0, totalUnits: 3 } as never,
      },
    );
    await sweep.tick(Date.now() + 1);
    expect((await tasks.get(id))?.status).toBe('failed');
    const score = await ctx.redis.zscore(ctx.keys.retentionIndex(0), id);
    expect(Number(score)).toBeGreaterThan(Date.now() + 3_500_000);
  });

  it('archives a child only with or after its parent', async () => {
    const store = new MemoryObjectStore();
    const { sweep } = sweepWith(store);
    const parentId = TaskRepository.newTaskId();
    const { task: parent } = await tasks.create(parentId, newNoopTask());
    const childId = await finished({ parentId } as never);

    const first = await sweep.tick(Date.now() + 1);
    expect(first).toMatchObject({ archived: 0, postponed: 1 });
    expect(await tasks.get(childId)).not.toBeNull();

    await lifecycle.stop(parent);
    await sweep.tick(Date.now() + 2);
    await sweep.tick(Date.now() + 3);
    expect(await tasks.get(parentId)).toBeNull();
    expect(await tasks.get(childId)).toBeNull();
    expect(await store.get(ObjectKeys.archive('acme', childId))).not.toBeNull();
  });

  it('writes the same bytes again after a crash between the write and the removal', async () => {
    const store = new MemoryObjectStore();
    const { sweep, writer } = sweepWith(store);
    const id = await finished();
    const expiredAt = Number(await ctx.redis.zscore(ctx.keys.retentionIndex(0), id));
    await writer.write((await writer.collect(id, expiredAt))!);
    const firstBytes = await store.get(ObjectKeys.archive('acme', id));

    await sweep.tick(Date.now() + 1);

    expect(await tasks.get(id)).toBeNull();
    expect((await store.get(ObjectKeys.archive('acme', id)))!.equals(firstBytes!)).toBe(true);
  });

  it('keeps the task in Redis when the archive cannot be written, and tries again later', async () => {
    const store = new MemoryObjectStore();
    store.put = async () => {
      throw new Error('bucket unreachable');
    };
    const { sweep } = sweepWith(store);
    const id = await finished();
    const now = Date.now() + 1;
    expect(await sweep.tick(now)).toMatchObject({ archived: 0, failed: 1 });
    expect((await tasks.get(id))?.status).toBe('cancelled');
    expect(Number(await ctx.redis.zscore(ctx.keys.retentionIndex(0), id))).toBeGreaterThan(now);
  });

  it("ends each task's trace with its retention: archived with its bytes, or failed", async () => {
    const { tracing, spans } = memoryTracing();
    const archivedId = await finished();
    await sweepWith(new MemoryObjectStore(), {}, tracing).sweep.tick(Date.now() + 1);
    const broken = new MemoryObjectStore();
    broken.put = async () => {
      throw new Error('bucket unreachable');
    };
    const failedId = await finished();
    await sweepWith(broken, {}, tracing).sweep.tick(Date.now() + 1);
    const [archived, failed] = [archivedId, failedId].map((id) =>
      spans().find(
        (span) => span.spanContext().traceId === taskTraceId(id) && span.name === 'vigil.retention',
      ),
    );
    expect(archived?.parentSpanContext?.spanId).toBe(taskRootSpanId(archivedId));
    expect(archived?.attributes).toMatchObject({ 'vigil.archive.outcome': 'archived' });
    expect(archived?.attributes['vigil.archive.bytes']).toBeGreaterThan(0);
    expect(failed?.attributes).toMatchObject({ 'vigil.archive.outcome': 'failed' });
    expect(failed?.status.code).toBe(2);
  });

  it('with ARCHIVE=off deletes without writing anything', async () => {
    const store = new MemoryObjectStore();
    const { sweep } = sweepWith(store, { ARCHIVE: 'off' });
    const id = await finished();
    expect(await sweep.tick(Date.now() + 1)).toMatchObject({ archived: 0, deleted: 1 });
    expect(await keysOf(ctx, id)).toEqual([]);
    expect(await store.get(ObjectKeys.archive('acme', id))).toBeNull();
  });
});

describe('RetentionSweep pacing', () => {
  // A prefix of its own: a shard with no task of the other tests, active or due.
  const ctx = new RedisTestContext('retention-pace', {
    TASK_RETENTION_MS: '0',
    ARCHIVE_BUSY_LAG_MS: '60000',
  });
  const { tasks, lifecycle } = new TaskHarness(ctx);
  afterAll(() => ctx.close());

  async function finished(): Promise<string> {
    const { task } = await tasks.create(TaskRepository.newTaskId(), newNoopTask());
    await lifecycle.stop(task);
    return task.id;
  }

  it('waits for a quiet shard while tasks are active, but never longer than ARCHIVE_BUSY_LAG_MS', async () => {
    const store = new MemoryObjectStore();
    const { sweep } = retentionSweepOn(ctx, lifecycle, store, { owner: 'w1' });
    const live = await tasks.create(TaskRepository.newTaskId(), newNoopTask());
    const id = await finished();
    const expiredAt = Number(await ctx.redis.zscore(ctx.keys.retentionIndex(0), id));

    expect(await sweep.tick(expiredAt + 59_000)).toMatchObject({ archived: 0 });
    expect((await tasks.get(id))?.status).toBe('cancelled');
    // Overdue by the lag: archived though the shard is still busy.
    expect(await sweep.tick(expiredAt + 60_000)).toMatchObject({ archived: 1 });
    expect(await tasks.get(id)).toBeNull();

    const next = await finished();
    await lifecycle.stop(live.task);
    // Nothing active any more: everything due goes at once (the stopped task too).
    expect(await sweep.tick(Date.now() + 1)).toMatchObject({ archived: 2 });
    expect(await tasks.get(next)).toBeNull();
    expect(await tasks.get(live.task.id)).toBeNull();
  });
});
