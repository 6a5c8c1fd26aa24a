import { RedisTestContext } from '@vigil/testing';
import {
  LIVE_OUTPUT_MAX_ENTRIES,
  LIVE_OUTPUT_WINDOW_MS,
  LiveOutputChannel,
  parseLiveEvent,
  type LiveEvent,
} from '@vigil/tasks';

/** The task's live output key (docs/api.md, "Live model output"): short-lived and capped. */
describe('LiveOutputChannel', () => {
  const ctx = new RedisTestContext('tasks-live-output');
  const channel = new LiveOutputChannel(ctx.redis, ctx.keys);
  afterAll(() => ctx.close());

  const delta = (i: number): LiveEvent => ({
    type: 'model.delta',
    attempt: 1,
    callId: 'c1',
    text: `${i} `,
    offset: i,
  });

  it('appends events in order beside the task, and the key expires LIVE_OUTPUT_WINDOW_MS after the last', async () => {
    const key = ctx.keys.liveOutput('tsk_live-1');
    expect(key.startsWith(ctx.keys.task('tsk_live-1'))).toBe(true);
    await channel.publish([{ taskId: 'tsk_live-1', events: [delta(0), delta(1)], expire: true }]);
    await channel.publish([
      {
        taskId: 'tsk_live-1',
        events: [{ type: 'model.call_abandoned', attempt: 1, callId: 'c1', reason: 'stopped' }],
        expire: false,
      },
    ]);
    const entries = (await ctx.redis.xrange(key, '-', '+')).map(([id, fields]) => parseLiveEvent(id, fields));
    expect(entries.map((event) => event && { ...event, id: undefined })).toEqual([
      { ...delta(0), id: undefined },
      { ...delta(1), id: undefined },
      { type: 'model.call_abandoned', attempt: 1, callId: 'c1', reason: 'stopped', id: undefined },
    ]);
    const ttl = await ctx.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LIVE_OUTPUT_WINDOW_MS);
  });

  it('appends without touching the expiry when the writer set it lately: the key keeps it', async () => {
    const key = ctx.keys.liveOutput('tsk_live-3');
    await channel.publish([{ taskId: 'tsk_live-3', events: [delta(0)], expire: true }]);
    await ctx.redis.pexpire(key, 5_000);
    await channel.publish([{ taskId: 'tsk_live-3', events: [delta(1)], expire: false }]);
    const ttl = await ctx.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    expect(await ctx.redis.xlen(key)).toBe(2);
  });

  it('keeps about LIVE_OUTPUT_MAX_ENTRIES: the oldest go first', async () => {
    const total = LIVE_OUTPUT_MAX_ENTRIES * 2;
    for (let i = 0; i < total; i += 100)
      await channel.publish([
        { taskId: 'tsk_live-2', events: Array.from({ length: 100 }, (_, j) => delta(i + j)), expire: true },
      ]);
    const length = await ctx.redis.xlen(ctx.keys.liveOutput('tsk_live-2'));
    expect(length).toBeGreaterThanOrEqual(LIVE_OUTPUT_MAX_ENTRIES);
    expect(length).toBeLessThan(total);
    const [[newest]] = await ctx.redis.xrevrange(ctx.keys.liveOutput('tsk_live-2'), '+', '-', 'COUNT', 1);
    const [[, fields]] = await ctx.redis.xrange(ctx.keys.liveOutput('tsk_live-2'), newest, newest);
    expect(parseLiveEvent(newest, fields)).toMatchObject({ offset: total - 1 });
  });

  it('takes many tasks of several shards in one publish, one script call per shard', async () => {
    const sharded = new RedisTestContext('tasks-live-output-shards', { SHARDS: '4' });
    try {
      const many = new LiveOutputChannel(sharded.redis, sharded.keys);
      const ids = Array.from({ length: 12 }, (_, i) => `tsk_many-${i}`);
      expect(new Set(ids.map((id) => sharded.keys.shardOf(id))).size).toBeGreaterThan(1);
      await many.publish(
        ids.map((taskId, i) => ({ taskId, events: [delta(i), delta(i + 100)], expire: i % 2 === 0 })),
      );
      for (const [i, taskId] of ids.entries()) {
        const key = sharded.keys.liveOutput(taskId);
        const offsets = (await sharded.redis.xrange(key, '-', '+')).map(
          ([id, fields]) => (parseLiveEvent(id, fields) as { offset: number }).offset,
        );
        expect(offsets).toEqual([i, i + 100]);
        expect((await sharded.redis.pttl(key)) > 0).toBe(i % 2 === 0);
      }
    } finally {
      await sharded.close();
    }
  });

  it('ignores entries that are not live events', () => {
    expect(parseLiveEvent('1-0', ['e', '{"type":"task.progress"}'])).toBeUndefined();
    expect(parseLiveEvent('1-0', ['e', 'not json'])).toBeUndefined();
    expect(parseLiveEvent('1-0', ['x', '{}'])).toBeUndefined();
  });
});
