import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RedisKeys } from '@vigil/redis';
import type { TaskRecord } from '@vigil/tasks';
import type { UserMessage } from '../messages/user-message';
import type { DeliveryChannel, OutboxEntry } from './delivery-channel';

/** An entry older than this was left behind by a notifier that died before dispatching it. */
const STRANDED_AFTER_MS = 5_000;
const SWEEP_BATCH = 200;

/**
 * Transactional outbox between the message log and the external channels. The append/claim
 * script writes a message and its outbox entries together; the entries are then handed to their
 * channels and removed. A crash in between leaves them in the outbox, and `sweep` (any replica)
 * hands them over again — channels are idempotent per message id, so that is never a second send.
 */
export class DeliveryOutbox {
  private readonly logger = new Logger(DeliveryOutbox.name);
  private readonly channels: Map<string, DeliveryChannel>;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    channels: DeliveryChannel[],
  ) {
    this.channels = new Map(channels.map((channel) => [channel.name, channel]));
  }

  /** Serialized entries for the external channels of this task; none at all for a sandbox task. */
  entriesFor(task: TaskRecord, message: UserMessage): string[] {
    if (task.sandbox) return [];
    const entries: string[] = [];
    for (const channel of this.channels.values()) {
      const target = channel.targetFor(task);
      if (target)
        entries.push(JSON.stringify({ channel: channel.name, target, message } satisfies OutboxEntry));
    }
    return entries;
  }

  /** Hands entries to their channels; an entry leaves the outbox only once its channel took it. */
  async dispatch(taskId: string, entries: string[]): Promise<void> {
    const outbox = this.keys.notifyOutbox(this.keys.shardOf(taskId));
    for (const raw of entries) {
      const entry = JSON.parse(raw) as OutboxEntry;
      const channel = this.channels.get(entry.channel);
      if (!channel) {
        // Written by a replica with another channel set: left for one that has it.
        this.logger.warn(`no channel ${entry.channel} here for message ${entry.message.id}`);
        continue;
      }
      await channel.deliver(entry);
      await this.redis.zrem(outbox, raw);
    }
  }

  /**
   * Dispatches without holding up the caller. The entries are already durable in the outbox (written
   * with the message), so the event can be acknowledged now; a failure here is logged and the
   * sweep hands the entries over again.
   */
  dispatchInBackground(taskId: string, entries: string[]): void {
    if (entries.length === 0) return;
    const work = this.dispatch(taskId, entries)
      .catch((error: unknown) =>
        this.logger.warn(`dispatch for ${taskId} failed, left to the sweep: ${String(error)}`),
      )
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  /** Waits for background dispatches (shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /** Re-dispatches entries stranded by a notifier that died between append and dispatch. */
  async sweep(now = Date.now()): Promise<number> {
    let handed = 0;
    for (const shard of this.keys.allShards()) {
      const stranded = await this.redis.zrangebyscore(
        this.keys.notifyOutbox(shard),
        '-inf',
        now - STRANDED_AFTER_MS,
        'LIMIT',
        0,
        SWEEP_BATCH,
      );
      for (const raw of stranded) {
        const entry = JSON.parse(raw) as OutboxEntry;
        await this.dispatch(entry.message.taskId, [raw]);
        handed++;
      }
    }
    return handed;
  }
}
