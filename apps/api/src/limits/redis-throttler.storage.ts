import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Redis } from 'ioredis';
import { storeFullOf } from '@vigil/tasks';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The rate-limit counters of @nestjs/throttler in Redis, so every API process shares them: one
 * fixed window per key, opened and counted in one MULTI (SET NX PX, INCR, PTTL) — no Lua, and a
 * single key per command, so it runs on a Redis Cluster too. Keys: `<KEY_PREFIX>:ratelimit:<key>`.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  key(key: string): string {
    return `${this.prefix}:ratelimit:${key}`;
  }

  /**
   * The first write of every rate-limited request: a full Redis refuses it as StoreFullError, so
   * the request is a 503 `store_full` before anything else is tried (docs/operations.md, "A full Redis").
   */
  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    try {
      return await this.count(this.key(key), ttl, limit);
    } catch (error) {
      throw storeFullOf(error);
    }
  }

  private async count(name: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const replies = await this.redis.multi().set(name, 0, 'PX', ttl, 'NX').incr(name).pttl(name).exec();
    if (!replies) throw new Error('rate-limit transaction was aborted');
    for (const [error] of replies) if (error) throw error;
    const totalHits = Number(replies[1][1]);
    let pttl = Number(replies[2][1]);
    if (pttl < 0) {
      // The window expired between SET and INCR: the INCR opened a new one without an expiry.
      await this.redis.pexpire(name, ttl);
      pttl = ttl;
    }
    // @nestjs/throttler 6 counts these in seconds (they become Retry-After).
    const timeToExpire = Math.max(1, Math.ceil(pttl / 1000));
    const isBlocked = totalHits > limit;
    return { totalHits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
  }
}
