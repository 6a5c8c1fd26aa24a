import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { CLOCKS_CONFIG, ClockConfig } from '@vigil/config';
import { parseTaskEvent, TaskEvent } from '@vigil/events';
import { REDIS, RedisKeys } from '@vigil/redis';

type StreamReply = [string, [string, string[]][]][] | null;

/** Entries read per shard and round: a burst is followed in pages, never all at once. */
const BATCH = 500;

export interface ChangeListener {
  /** The events of one read, across shards, oldest first per shard. */
  changed(events: TaskEvent[]): Promise<void>;
  /** Nothing happened for SSE_HEARTBEAT_MS: time for a keep-alive. */
  idle(): void;
}

/** `<ms>-<seq>` or a bare `<ms>`: where a page that was rendered at that time picks up. */
export function streamCursor(after: string | undefined, now = Date.now()): string {
  if (after && /^\d{1,15}-\d{1,15}$/.test(after)) return after;
  if (after && /^\d{1,15}$/.test(after)) return `${after}-0`;
  return `${now}-0`;
}

/**
 * Follows every shard's task event stream (docs/operations.md, "The task dashboard"): the
 * dashboard's live pages re-read only the tasks an event names. Each follower blocks on its own
 * connection (a blocking read holds it); shutdown ends them all, as TaskEventStream does.
 */
@Injectable()
export class TaskChanges implements BeforeApplicationShutdown {
  private readonly open = new Set<AbortController>();

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(CLOCKS_CONFIG) private readonly clocks: ClockConfig,
  ) {}

  async follow(after: string | undefined, listener: ChangeListener, client: AbortSignal): Promise<void> {
    const shutdown = new AbortController();
    const signal = AbortSignal.any([client, shutdown.signal]);
    const connection = this.redis.duplicate();
    const close = () => connection.disconnect();
    signal.addEventListener('abort', close, { once: true });
    this.open.add(shutdown);
    const shards = this.keys.allShards();
    const streams = shards.map((shard) => this.keys.events(shard));
    const cursors = shards.map(() => streamCursor(after));
    try {
      while (!signal.aborted) {
        const reply = (await connection.xread(
          'COUNT',
          BATCH,
          'BLOCK',
          this.clocks.sseHeartbeatMs,
          'STREAMS',
          ...streams,
          ...cursors,
        )) as StreamReply;
        if (!reply) {
          listener.idle();
          continue;
        }
        const events: TaskEvent[] = [];
        for (const [stream, entries] of reply) {
          const i = streams.indexOf(stream);
          for (const [id, fields] of entries) {
            cursors[i] = id;
            events.push(parseTaskEvent(shards[i], id, fields));
          }
        }
        await listener.changed(events);
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      this.open.delete(shutdown);
      signal.removeEventListener('abort', close);
      connection.disconnect();
    }
  }

  /** Followers open in this process: each holds a Redis connection of its own. */
  get following(): number {
    return this.open.size;
  }

  /** Nest calls this on shutdown: open streams would otherwise hold the HTTP server. */
  beforeApplicationShutdown(): void {
    for (const follower of this.open) follower.abort();
  }
}
