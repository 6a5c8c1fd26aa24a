import { Redis } from 'ioredis';
import { RedisTestContext, newNoopTask, redisLifecycle, TEST_CLAIM } from '@vigil/testing';
import { TaskRepository } from '@vigil/tasks';
import { StreamConsumer, type TaskEvent } from '@vigil/events';

describe('StreamConsumer', () => {
  const ctx = new RedisTestContext('events', { EVENT_STREAM_MAXLEN: '100' });
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const { lifecycle } = redisLifecycle(ctx);
  afterAll(() => ctx.close());

  const until = async (condition: () => boolean | Promise<boolean>, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not met');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('delivers typed events and acknowledges them after the handler resolved', async () => {
    const seen: TaskEvent[] = [];
    const consumer = new StreamConsumer(
      ctx.redis,
      ctx.keys,
      { group: 'g1', consumer: 'c1', claimIdleMs: 1000, blockMs: 100 },
      async (e) => {
        seen.push(e);
      },
    );
    await consumer.start();
    const { task } = await tasks.create('ev-1', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await until(() => seen.length === 2);
    await consumer.stop();
    expect(seen.map((e) => [e.type, e.taskId, e.attempt, e.status])).toEqual([
      ['task.created', 'ev-1', 1, 'queued'],
      ['task.started', 'ev-1', 1, 'running'],
    ]);
    const pending = (await ctx.redis.xpending(ctx.keys.events(0), 'g1')) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });

  it("claims a dead consumer's pending messages (XAUTOCLAIM) so none is lost", async () => {
    await ctx.redis.xgroup('CREATE', ctx.keys.events(0), 'g2', '$', 'MKSTREAM');
    const { task } = await tasks.create('ev-2', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    // A consumer reads both events and dies before acknowledging them.
    await ctx.redis.xreadgroup('GROUP', 'g2', 'dead', 'COUNT', 10, 'STREAMS', ctx.keys.events(0), '>');
    const seen: string[] = [];
    const live = new StreamConsumer(
      ctx.redis,
      ctx.keys,
      { group: 'g2', consumer: 'live', claimIdleMs: 200, blockMs: 100 },
      async (e) => {
        seen.push(`${e.taskId}:${e.type}`);
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 250));
    await live.start();
    await until(() => seen.length === 2);
    await live.stop();
    expect(seen).toEqual(['ev-2:task.created', 'ev-2:task.started']);
    const pending = (await ctx.redis.xpending(ctx.keys.events(0), 'g2')) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });

  it('leaves a failed message pending for a later retry instead of dropping it', async () => {
    await ctx.redis.xgroup('CREATE', ctx.keys.events(0), 'g3', '$', 'MKSTREAM');
    let calls = 0;
    const consumer = new StreamConsumer(
      ctx.redis,
      ctx.keys,
      { group: 'g3', consumer: 'c', claimIdleMs: 100, blockMs: 50 },
      async () => {
        calls++;
        if (calls === 1) throw new Error('transient');
      },
    );
    await consumer.start();
    await tasks.create('ev-3', newNoopTask());
    await until(() => calls >= 2);
    await consumer.stop();
    const pending = (await ctx.redis.xpending(ctx.keys.events(0), 'g3')) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });

  it('acknowledges what one read delivered in one XACK, not one per event', async () => {
    for (const shard of ctx.keys.allShards())
      await ctx.redis.xgroup('CREATE', ctx.keys.events(shard), 'g4', '$', 'MKSTREAM');
    const ids = Array.from({ length: 30 }, (_, i) => `batch-${i}`);
    for (const id of ids) await tasks.create(id, newNoopTask());
    const shardsWritten = new Set(ids.map((id) => ctx.keys.shardOf(id)));
    // A spy that calls through: every connection of the consumer (its duplicates too) is counted.
    const xack = jest.spyOn(Redis.prototype, 'xack');
    const seen: string[] = [];
    let calls: [string, string, ...string[]][] = [];
    const consumer = new StreamConsumer(
      ctx.redis,
      ctx.keys,
      { group: 'g4', consumer: 'c', claimIdleMs: 60_000, blockMs: 50 },
      async (e) => {
        seen.push(e.taskId);
      },
    );
    try {
      await consumer.start();
      await until(() => seen.length === ids.length);
      await until(async () => {
        for (const shard of shardsWritten) {
          const pending = (await ctx.redis.xpending(ctx.keys.events(shard), 'g4')) as [number, ...unknown[]];
          if (pending[0] !== 0) return false;
        }
        return true;
      });
    } finally {
      await consumer.stop();
      // Read before the restore, which clears them.
      calls = [...(xack.mock.calls as unknown as [string, string, ...string[]][])];
      xack.mockRestore();
    }
    expect(seen.sort()).toEqual([...ids].sort());
    // One call per shard that had events (each shard's 30 or fewer entries came in one read).
    expect(calls).toHaveLength(shardsWritten.size);
    expect(calls.reduce((sum, [, , ...acked]) => sum + acked.length, 0)).toBe(ids.length);
  });

  it('keeps the stream bounded', async () => {
    for (let i = 0; i < 400; i++) await tasks.create(`bulk-${i}`, newNoopTask());
    // MAXLEN ~ trims whole macro nodes: the bound is approximate but holds.
    expect(await ctx.redis.xlen(ctx.keys.events(0))).toBeLessThan(300);
  });
});
