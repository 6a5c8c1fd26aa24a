import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { ClockConfig, LimitsConfig } from '@vigil/config';
import { RedisKeys } from '@vigil/redis';
import { decodeTask, TaskRecord } from '@vigil/tasks';
import type { DeliveryOutbox } from '../delivery/delivery-outbox';
import type { ClaimOutcome, MessageLog } from '@vigil/tasks';
import { progressText } from '../messages/progress-text';
import { toUserMessage, updateMessageId, UserMessage } from '../messages/user-message';

const BATCH = 500;

export type UpdateReport = Partial<Record<ClaimOutcome, number>>;

/** Slot k >= 1 of a task starts at createdAt + k × interval; slot 0 is the moment it was created. */
export function updateSlot(createdAt: number, now: number, intervalMs: number): number {
  return Math.floor((now - createdAt) / intervalMs);
}

/**
 * Sends the periodic progress updates. Due tasks come from the shard's update index (scored by next
 * due time), never from a scan; each update is claimed in `claim-update.lua`, so every replica may
 * run this at once and each update still goes out once.
 */
export class UpdateScheduler {
  private readonly logger = new Logger(UpdateScheduler.name);

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly clocks: ClockConfig,
    private readonly limits: LimitsConfig,
    private readonly log: MessageLog,
    private readonly outbox: DeliveryOutbox,
  ) {}

  async tick(now = Date.now()): Promise<UpdateReport> {
    const report: UpdateReport = {};
    for (const shard of this.keys.allShards()) {
      const due = await this.redis.zrangebyscore(
        this.keys.updatesIndex(shard),
        '-inf',
        now,
        'LIMIT',
        0,
        BATCH,
      );
      if (due.length === 0) continue;
      const pipeline = this.redis.pipeline();
      for (const id of due) pipeline.hgetall(this.keys.task(id));
      const records = (await pipeline.exec()) ?? [];
      await Promise.all(
        due.map(async (id, i) => {
          const [error, hash] = records[i] ?? [null, {}];
          try {
            if (error) throw error;
            const outcome = await this.claim(id, decodeTask(hash as Record<string, string>), now);
            report[outcome] = (report[outcome] ?? 0) + 1;
          } catch (failure) {
            // Left in the index as it was: the next tick tries again.
            this.logger.error(`update for ${id} failed: ${String(failure)}`);
          }
        }),
      );
    }
    return report;
  }

  private async claim(id: string, task: TaskRecord | null, now: number): Promise<ClaimOutcome> {
    const intervalMs = this.clocks.userUpdateIntervalMs;
    const options = { now, intervalMs, streamMaxLen: this.limits.eventStreamMaxLen };
    if (!task) return this.log.claimUpdate(id, 0, null, [], options);
    const slot = updateSlot(task.createdAt, now, intervalMs);
    // Worded from the record as just read; the script decides whether it is sent at all.
    const draft = { kind: 'progress' as const, text: progressText(task), final: false };
    const message: UserMessage = toUserMessage(updateMessageId(id, slot), id, task.attempt, draft, now);
    const entries = this.outbox.entriesFor(task, message);
    const outcome = await this.log.claimUpdate(id, slot, message, entries, options);
    if (outcome === 'claimed') this.outbox.dispatchInBackground(id, entries);
    return outcome;
  }
}
