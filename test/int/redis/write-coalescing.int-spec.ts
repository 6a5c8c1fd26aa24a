import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { RedisTestContext } from '@vigil/testing';
import { coalesceWrites, createRedis } from '@vigil/redis';

/** Counts the system-call-level writes (`_write` / `_writev`) the connection's socket makes. */
function countWrites(redis: Redis): { writes: number } {
  const stream = (redis as unknown as { stream: Socket & Record<string, unknown> }).stream;
  const counter = { writes: 0 };
  for (const method of ['_write', '_writev'] as const) {
    const original = stream[method] as (...args: unknown[]) => unknown;
    stream[method] = function (this: Socket, ...args: unknown[]) {
      counter.writes++;
      return original.apply(this, args);
    };
  }
  return counter;
}

/** `count` commands issued in one turn of the event loop; their replies, in order. */
async function burst(redis: Redis, key: string, count: number): Promise<string[]> {
  await redis.del(key);
  const replies = Array.from({ length: count }, (_, i) => redis.rpush(key, `v${i}`).then(String));
  await Promise.all(replies);
  return redis.lrange(key, 0, -1);
}

describe('coalesceWrites', () => {
  const ctx = new RedisTestContext('coalesce');
  const connections: Redis[] = [];
  const connect = (name: string): Redis => {
    const redis = createRedis(ctx.config, `${ctx.prefix}:${name}`);
    connections.push(redis);
    return redis;
  };
  afterAll(async () => {
    await Promise.all(connections.map((redis) => redis.quit().catch(() => redis.disconnect())));
    await ctx.close();
  });

  const expected = Array.from({ length: 100 }, (_, i) => `v${i}`);

  it('sends a burst of commands from one turn in one write, replies in order', async () => {
    const plain = connect('plain');
    const coalesced = coalesceWrites(connect('coalesced'));
    await Promise.all([plain.ping(), coalesced.ping()]);

    const plainWrites = countWrites(plain);
    expect(await burst(plain, `${ctx.prefix}:plain`, 100)).toEqual(expected);
    const coalescedWrites = countWrites(coalesced);
    expect(await burst(coalesced, `${ctx.prefix}:coalesced`, 100)).toEqual(expected);

    // One write per command without it (the control: this is what the wrapper changes), and for
    // the coalesced connection one for the DEL, one for the 100 RPUSHes, one for the LRANGE.
    expect(plainWrites.writes).toBeGreaterThanOrEqual(100);
    expect(coalescedWrites.writes).toBe(3);
  });

  it('keeps coalescing on the new socket after a reconnect', async () => {
    const redis = coalesceWrites(connect('reconnects'));
    const id = await redis.client('ID');
    const killer = connect('killer');
    await killer.client('KILL', 'ID', String(id));
    // The next command waits for the reconnection (maxRetriesPerRequest: null).
    await redis.ping();
    expect(await redis.client('ID')).not.toBe(id);

    const writes = countWrites(redis);
    expect(await burst(redis, `${ctx.prefix}:after-reconnect`, 100)).toEqual(expected);
    expect(writes.writes).toBe(3);
  });

  it('passes a command written alone straight through, in the same turn', async () => {
    const redis = coalesceWrites(connect('single'));
    await redis.ping();
    const writes = countWrites(redis);
    await redis.set(`${ctx.prefix}:single`, '1');
    expect(await redis.get(`${ctx.prefix}:single`)).toBe('1');
    expect(writes.writes).toBe(2);
  });
});
