import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { isOutOfMemory, RedisKeys } from '@vigil/redis';
import { parseTaskEvent, TaskEvent } from './task-event';

export interface StreamConsumerOptions {
  group: string;
  consumer: string;
  /** Messages pending longer than this on a consumer are presumed orphaned and claimed. */
  claimIdleMs: number;
  batchSize?: number;
  blockMs?: number;
  /** Where a new group starts: `$` (only new events) or `0` (the whole retained stream). */
  startId?: string;
}

export type TaskEventHandler = (event: TaskEvent) => Promise<void>;

type StreamReply = [string, [string, string[]][]][] | null;

/**
 * At-least-once consumer of the shards' event streams through one consumer group. A message is
 * acknowledged only after its handler resolved; a handler error leaves it pending, and any consumer
 * of the group claims messages left pending too long (a dead consumer's) with XAUTOCLAIM.
 */
export class StreamConsumer {
  private readonly logger: Logger;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly connections: Redis[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly options: StreamConsumerOptions,
    private readonly handler: TaskEventHandler,
  ) {
    this.logger = new Logger(`StreamConsumer:${options.group}`);
  }

  async start(): Promise<void> {
    this.running = true;
    for (const shard of this.keys.allShards()) {
      await this.ensureGroup(shard);
      // Blocking reads hold their connection, so each shard reads on its own.
      const connection = this.redis.duplicate();
      this.connections.push(connection);
      this.loops.push(this.loop(shard, connection));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const connection of this.connections) connection.disconnect();
    await Promise.allSettled(this.loops);
    this.loops = [];
    this.connections.length = 0;
  }

  private async ensureGroup(shard: number): Promise<void> {
    try {
      await this.redis.xgroup(
        'CREATE',
        this.keys.events(shard),
        this.options.group,
        this.options.startId ?? '$',
        'MKSTREAM',
      );
    } catch (error) {
      if (String(error).includes('BUSYGROUP')) return;
      // A full Redis refuses XGROUP CREATE before it looks (docs/operations.md, "A full Redis"):
      // a group that exists already is all a start needs, and XINFO is a read.
      if (isOutOfMemory(error) && (await this.groupExists(shard))) return;
      throw error;
    }
  }

  private async groupExists(shard: number): Promise<boolean> {
    const groups = (await this.redis.xinfo('GROUPS', this.keys.events(shard))) as unknown[][];
    return groups.some((group) => group[group.indexOf('name') + 1] === this.options.group);
  }

  private async loop(shard: number, connection: Redis): Promise<void> {
    let lastClaim = 0;
    while (this.running) {
      try {
        if (Date.now() - lastClaim >= Math.min(this.options.claimIdleMs, 5_000)) {
          lastClaim = Date.now();
          await this.claimOrphans(shard, connection);
        }
        const reply = (await connection.xreadgroup(
          'GROUP',
          this.options.group,
          this.options.consumer,
          'COUNT',
          this.options.batchSize ?? 100,
          'BLOCK',
          this.options.blockMs ?? 1_000,
          'STREAMS',
          this.keys.events(shard),
          '>',
        )) as StreamReply;
        for (const [, entries] of reply ?? []) await this.handleAll(shard, entries, connection);
      } catch (error) {
        if (!this.running) return;
        this.logger.error(`reading shard ${shard} failed: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /** Takes over messages another consumer read but never acknowledged (it died or hung). */
  async claimOrphans(shard: number, connection: Redis = this.redis): Promise<number> {
    let cursor = '0-0';
    let claimed = 0;
    do {
      const [next, entries] = (await connection.xautoclaim(
        this.keys.events(shard),
        this.options.group,
        this.options.consumer,
        this.options.claimIdleMs,
        cursor,
        'COUNT',
        100,
      )) as [string, [string, string[]][]];
      const live = entries.filter((entry) => entry && entry[1]);
      claimed += live.length;
      await this.handleAll(shard, live, connection);
      cursor = next;
    } while (cursor !== '0-0' && this.running);
    return claimed;
  }

  private async handleAll(shard: number, entries: [string, string[]][], connection: Redis): Promise<void> {
    for (const [id, fields] of entries) {
      const event = parseTaskEvent(shard, id, fields);
      try {
        await this.handler(event);
        await connection.xack(this.keys.events(shard), this.options.group, id);
      } catch (error) {
        // Left pending on purpose: it is retried when claimed after claimIdleMs.
        this.logger.error(`handling ${event.type} ${id} for ${event.taskId} failed: ${String(error)}`);
      }
    }
  }
}
