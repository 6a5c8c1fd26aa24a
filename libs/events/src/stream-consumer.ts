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

/** An entry whose fields are null: trimmed from the stream while it was pending. */
type StreamReply = [string, [string, string[] | null][]][] | null;

/** How soon a consumer reads again the entries it failed to handle (or may have lost on a reconnect). */
const OWN_RETRY_MS = 1_000;

/**
 * At-least-once consumer of the shards' event streams through one consumer group. A message is
 * acknowledged only after its handler resolved; a handler error leaves it pending and the consumer
 * reads it again a second later (as it does its own pending entries after a reconnect), and any
 * consumer of the group claims messages left pending too long (a dead consumer's) with XAUTOCLAIM.
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
    // Its own pending entries are read again (id 0) before new ones whenever it may hold some it
    // has not handled: a handler refused (a full Redis), or a reconnect (a restart) that may have
    // lost the reply of a read Redis had already delivered and recorded as pending. Left to
    // XAUTOCLAIM they would wait claimIdleMs, the time a dead consumer is given.
    let ownPendingAt = 0;
    const onReady = () => (ownPendingAt = Date.now());
    connection.on('ready', onReady);
    try {
      while (this.running) {
        try {
          if (Date.now() - lastClaim >= Math.min(this.options.claimIdleMs, 5_000)) {
            lastClaim = Date.now();
            await this.claimOrphans(shard, connection);
          }
          const own = ownPendingAt > 0 && Date.now() >= ownPendingAt;
          const readGroup = connection.xreadgroup.bind(connection) as unknown as (
            ...args: (string | number)[]
          ) => Promise<StreamReply>;
          const reply = await readGroup(
            'GROUP',
            this.options.group,
            this.options.consumer,
            'COUNT',
            this.options.batchSize ?? 100,
            ...(own ? [] : ['BLOCK', this.options.blockMs ?? 1_000]),
            'STREAMS',
            this.keys.events(shard),
            own ? '0' : '>',
          );
          const delivered = (reply ?? []).flatMap(([, entries]) => entries);
          const failed = await this.handleAll(shard, delivered, connection);
          if (failed > 0) ownPendingAt = Date.now() + OWN_RETRY_MS;
          else if (own && delivered.length === 0) ownPendingAt = 0;
        } catch (error) {
          if (!this.running) return;
          this.logger.error(`reading shard ${shard} failed: ${String(error)}`);
          ownPendingAt = Date.now() + OWN_RETRY_MS;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    } finally {
      connection.off('ready', onReady);
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
      )) as [string, [string, string[] | null][]];
      claimed += entries.filter((entry) => entry?.[1]).length;
      await this.handleAll(shard, entries, connection);
      cursor = next;
    } while (cursor !== '0-0' && this.running);
    return claimed;
  }

  /**
   * Handles each entry, then acknowledges the handled ones in one XACK: one command per read, not
   * one per event (most events need nothing from a consumer but the read and the acknowledgement).
   * An entry is acknowledged only once its handler resolved; should the process die before the
   * XACK, the batch is delivered again, which handlers are made for (at-least-once). A pending
   * entry trimmed from the stream since reads back without fields: acknowledged, nothing to handle.
   * Returns how many failed (left pending, tried again).
   */
  private async handleAll(
    shard: number,
    entries: [string, string[] | null][],
    connection: Redis,
  ): Promise<number> {
    const handled: string[] = [];
    let failed = 0;
    for (const [id, fields] of entries) {
      if (!fields) {
        handled.push(id);
        continue;
      }
      const event = parseTaskEvent(shard, id, fields);
      try {
        await this.handler(event);
        handled.push(id);
      } catch (error) {
        // Left pending on purpose: this consumer reads it again after OWN_RETRY_MS, or another
        // claims it after claimIdleMs should this one die.
        failed++;
        this.logger.error(`handling ${event.type} ${id} for ${event.taskId} failed: ${String(error)}`);
      }
    }
    if (handled.length === 0) return failed;
    try {
      await connection.xack(this.keys.events(shard), this.options.group, ...handled);
    } catch (error) {
      // Handled but still pending: read again (own entries) and handled again, idempotently.
      this.logger.error(`acknowledging ${handled.length} events of shard ${shard} failed: ${String(error)}`);
      return failed + handled.length;
    }
    return failed;
  }
}
