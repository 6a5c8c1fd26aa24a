import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';

/**
 * How long a watch mark lasts: an open event stream renews it every LIVE_WATCH_RENEW_MS, so it
 * outlives a stream by at most this long (a crashed API leaves no watcher behind for longer).
 */
export const LIVE_WATCH_TTL_MS = 15_000;
/** How often an open event stream renews its task's watch mark. */
export const LIVE_WATCH_RENEW_MS = 5_000;

/**
 * Who follows a task's live model output (docs/api.md, "Live model output"): a small key beside
 * the record, set with an expiry by every open event stream of the task and renewed while it is
 * open. Workers publish a call's text only while it is there, so model output costs Redis nothing
 * when nobody watches. Several streams share the one key: each renewal pushes its expiry on, and
 * the last stream to close lets it lapse. One command each way, no read-modify-write.
 */
@Injectable()
export class LiveWatchers {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** Marks the task watched for the next LIVE_WATCH_TTL_MS. */
  async mark(taskId: string): Promise<void> {
    await this.redis.set(this.keys.liveWatched(taskId), '1', 'PX', LIVE_WATCH_TTL_MS);
  }

  async isWatched(taskId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.liveWatched(taskId))) === 1;
  }
}
