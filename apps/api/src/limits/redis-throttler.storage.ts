import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Redis } from 'ioredis';
import { countInFixedWindow } from '@vigil/redis';
import { storeFullOf } from '@vigil/tasks';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The rate-limit counters of @nestjs/throttler in Redis, so every API process shares them: one
 * fixed window per key (countInFixedWindow). Keys: `<KEY_PREFIX>:ratelimit:<key>`.
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
    const { hits: totalHits, remainingMs: pttl } = await countInFixedWindow(this.redis, name, ttl);
    // @nestjs/throttler 6 counts these in seconds (they become Retry-After).
    const timeToExpire = Math.max(1, Math.ceil(pttl / 1000));
    const isBlocked = totalHits > limit;
    return { totalHits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
  }
}
