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
    await channel.publish('tsk_live-1', [delta(0), delta(1)]);
    await channel.publish('tsk_live-1', [
      { type: 'model.call_abandoned', attempt: 1, callId: 'c1', reason: 'stopped' },
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
    await channel.publish('tsk_live-3', [delta(0)]);
    await ctx.redis.pexpire(key, 5_000);
    await channel.publish('tsk_live-3', [delta(1)], false);
    const ttl = await ctx.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
    expect(await ctx.redis.xlen(key)).toBe(2);
  });

  it('keeps about LIVE_OUTPUT_MAX_ENTRIES: the oldest go first', async () => {
    const total = LIVE_OUTPUT_MAX_ENTRIES * 2;
    for (let i = 0; i < total; i += 100)
      await channel.publish(
        'tsk_live-2',
        Array.from({ length: 100 }, (_, j) => delta(i + j)),
      );
    const length = await ctx.redis.xlen(ctx.keys.liveOutput('tsk_live-2'));
    expect(length).toBeGreaterThanOrEqual(LIVE_OUTPUT_MAX_ENTRIES);
    expect(length).toBeLessThan(total);
    const [[newest]] = await ctx.redis.xrevrange(ctx.keys.liveOutput('tsk_live-2'), '+', '-', 'COUNT', 1);
    const [[, fields]] = await ctx.redis.xrange(ctx.keys.liveOutput('tsk_live-2'), newest, newest);
    expect(parseLiveEvent(newest, fields)).toMatchObject({ offset: total - 1 });
  });

  it('ignores entries that are not live events', () => {
    expect(parseLiveEvent('1-0', ['e', '{"type":"task.progress"}'])).toBeUndefined();
    expect(parseLiveEvent('1-0', ['e', 'not json'])).toBeUndefined();
    expect(parseLiveEvent('1-0', ['x', '{}'])).toBeUndefined();
  });
});
