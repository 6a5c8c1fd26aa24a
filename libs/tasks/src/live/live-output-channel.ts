import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { TaskScripts } from '../scripts/task-scripts';
import { LIVE_OUTPUT_MAX_ENTRIES, LIVE_OUTPUT_WINDOW_MS, type LiveEvent } from './live-output';

/** Tasks per script call at most: a bigger publish is split, so no call holds Redis long. */
const TASKS_PER_CALL = 256;

/** What one task's live output gets in one publish. */
export interface LiveOutputBatch {
  taskId: string;
  events: readonly LiveEvent[];
  /**
   * Set the key's expiry again. A writer that set it within EXPIRY_REFRESH_MS passes false: the
   * key is then certainly still there with its expiry, which XADD keeps.
   */
  expire: boolean;
}

/**
 * Where tasks' live model output goes (docs/api.md, "Live model output"): a stream per task
 * beside its record (same shard, so one XREAD follows it with the shard's events), capped at
 * LIVE_OUTPUT_MAX_ENTRIES, gone LIVE_OUTPUT_WINDOW_MS after its expiry was last set. A publish
 * takes many tasks' output at once: one `publish-live-output` call per shard among them, so a
 * Worker's many calls cost it one command per turn of its event loop, not one per call.
 */
@Injectable()
export class LiveOutputChannel {
  constructor(
    @Inject(REDIS) redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  key(taskId: string): string {
    return this.keys.liveOutput(taskId);
  }

  /** Appends each task's events in order; rejects with the first failed call's error. */
  async publish(batches: readonly LiveOutputBatch[]): Promise<void> {
    const open = new Map<number, { keys: string[]; args: (string | number)[] }>();
    const calls: { keys: string[]; args: (string | number)[] }[] = [];
    for (const { taskId, events, expire } of batches) {
      if (events.length === 0) continue;
      const shard = this.keys.shardOf(taskId);
      let call = open.get(shard);
      if (!call || call.keys.length >= TASKS_PER_CALL) {
        call = { keys: [], args: [LIVE_OUTPUT_MAX_ENTRIES, LIVE_OUTPUT_WINDOW_MS] };
        open.set(shard, call);
        calls.push(call);
      }
      call.keys.push(this.key(taskId));
      call.args.push(expire ? 1 : 0, events.length);
      for (const event of events) call.args.push(JSON.stringify(event));
    }
    await Promise.all(calls.map(({ keys, args }) => this.scripts.run('publish-live-output', keys, args)));
  }
}
