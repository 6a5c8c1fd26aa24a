import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import {
  LIVE_OUTPUT_MAX_ENTRIES,
  LIVE_OUTPUT_WINDOW_MS,
  liveEventFields,
  type LiveEvent,
} from './live-output';

/**
 * Where a task's live model output goes (docs/api.md, "Live model output"): a stream per task
 * beside its record (same shard, so one XREAD follows it with the shard's events), capped at
 * LIVE_OUTPUT_MAX_ENTRIES and gone LIVE_OUTPUT_WINDOW_MS after its expiry was last set. A publish
 * is XADD, with PEXPIRE in the same round trip when the writer's expiry is due (`expire`), not a
 * script: nothing reads the two together, and both reach the server in one write, so no key is
 * left without its expiry.
 */
@Injectable()
export class LiveOutputChannel {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  key(taskId: string): string {
    return this.keys.liveOutput(taskId);
  }

  /**
   * Appends the events in order; rejects with the first command's error. `expire: false` is for
   * a writer that set the key's expiry within the last EXPIRY_REFRESH_MS: the key is then
   * certainly still there with its expiry, which XADD keeps.
   */
  async publish(taskId: string, events: readonly LiveEvent[], expire = true): Promise<void> {
    if (events.length === 0) return;
    const key = this.key(taskId);
    const pipeline = this.redis.pipeline();
    for (const event of events)
      pipeline.xadd(key, 'MAXLEN', '~', LIVE_OUTPUT_MAX_ENTRIES, '*', ...liveEventFields(event));
    if (expire) pipeline.pexpire(key, LIVE_OUTPUT_WINDOW_MS);
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([error]) => error);
    if (failed) throw failed[0];
  }
}
