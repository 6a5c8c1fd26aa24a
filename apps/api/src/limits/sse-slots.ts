import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { LIMITS_CONFIG, LimitsConfig, REDIS_CONFIG, RedisConfig } from '@vigil/config';
import { REDIS } from '@vigil/redis';

/** An open stream's hold on one of its key's slots; `release` when the stream ends. */
export interface SseSlot {
  release(): Promise<void>;
}

/**
 * MAX_SSE_STREAMS_PER_KEY across every API process: each open stream is a member of the sorted set
 * `<KEY_PREFIX>:sse:<tenant>`, scored by when its claim lapses and renewed while it is open, so a
 * stream of an API process that died stops counting within SLOT_TTL_MS instead of for ever.
 */
@Injectable()
export class SseSlots {
  static readonly SLOT_TTL_MS = 30_000;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(LIMITS_CONFIG) private readonly limits: LimitsConfig,
    @Inject(REDIS_CONFIG) private readonly redisConfig: RedisConfig,
  ) {}

  get limit(): number {
    return this.limits.maxSseStreamsPerKey;
  }

  key(tenantId: string): string {
    return `${this.redisConfig.keyPrefix}:sse:${tenantId}`;
  }

  /** A slot, or null when the tenant already holds MAX_SSE_STREAMS_PER_KEY open streams. */
  async acquire(tenantId: string, now = Date.now()): Promise<SseSlot | null> {
    const key = this.key(tenantId);
    const member = randomBytes(8).toString('hex');
    const ttl = SseSlots.SLOT_TTL_MS;
    const replies = await this.redis
      .multi()
      .zremrangebyscore(key, '-inf', now)
      .zadd(key, now + ttl, member)
      .zcard(key)
      .pexpire(key, ttl * 2)
      .exec();
    const open = Number(replies?.[2]?.[1] ?? 0);
    if (open > this.limits.maxSseStreamsPerKey) {
      await this.redis.zrem(key, member);
      return null;
    }
    const renew = setInterval(() => {
      const at = Date.now();
      void this.redis
        .multi()
        .zadd(key, 'XX', at + ttl, member)
        .pexpire(key, ttl * 2)
        .exec()
        .catch(() => undefined);
    }, ttl / 3);
    renew.unref();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await this.redis.zrem(key, member).catch(() => undefined);
      },
    };
  }
}
