import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { CLOCKS_CONFIG, type ClockConfig, STORAGE_CONFIG, type StorageConfig } from '@vigil/config';
import { REDIS, RedisKeys } from '@vigil/redis';
import {
  decodeTask,
  StoreFullError,
  TaskArchiveWriter,
  TaskLifecycle,
  TERMINAL_STATUSES,
} from '@vigil/tasks';
import { NOOP_TRACING, TRACING, VIGIL, type Tracing } from '@vigil/telemetry';
import { LeaseService } from './lease.service';

/** What one retention sweep did, over every shard this Watcher held the lease of. */
export interface RetentionReport {
  archived: number;
  /** Removed without an archive (ARCHIVE=off). */
  deleted: number;
  /** Archive writes that failed or did not read back: the task stays in Redis and is tried again. */
  failed: number;
  /** Children kept until their parent leaves. */
  postponed: number;
  archivedBytes: number;
}

/** Batches per shard per sweep: a backlog drains over several sweeps, never in one long hold. */
const MAX_BATCHES = 20;
/** A task whose archive failed is tried again after this, so it does not head every batch. */
const FAILURE_BACKOFF_MS = 60_000;

type Outcome = 'archived' | 'deleted' | 'failed' | 'postponed' | 'gone';

/**
 * Moves finished tasks whose retention ran out out of Redis (docs/operations.md, "Retention and
 * archives"). Found through each shard's retention index (transition-task.lua adds a task when it
 * ends), a shard at a time under its lease, in bounded batches. A task is archived, read back and
 * checked before `removeExpired` deletes it; ARCHIVE=off deletes only. A crash between the two
 * steps leaves the task in Redis and its index, and the next sweep writes the same bytes again.
 */
@Injectable()
export class RetentionSweep {
  private readonly logger = new Logger(RetentionSweep.name);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly lifecycle: TaskLifecycle,
    private readonly writer: TaskArchiveWriter,
    private readonly leases: LeaseService,
    @Inject(STORAGE_CONFIG) private readonly storage: StorageConfig,
    @Inject(CLOCKS_CONFIG) private readonly clocks: ClockConfig,
    @Inject('WATCHER_ID') private readonly owner: string,
    @Optional() @Inject(TRACING) private readonly tracing: Tracing = NOOP_TRACING,
  ) {}

  async tick(now = Date.now()): Promise<RetentionReport> {
    const report: RetentionReport = { archived: 0, deleted: 0, failed: 0, postponed: 0, archivedBytes: 0 };
    // Long enough for a shard's batches; a lease lost on a pause lets another Watcher repeat the same
    // idempotent work, never a different one.
    const ttlMs = Math.max(30_000, this.clocks.watcherIntervalMs * 2);
    for (const shard of this.keys.allShards()) {
      try {
        await this.leases.withRetentionLease(shard, ttlMs, this.owner, () =>
          this.sweepShard(shard, now, report),
        );
      } catch (error) {
        if (!(error instanceof StoreFullError)) throw error;
        // A full Redis refuses the lease (a write) but not the deletes that free it, so the shard is
        // swept without it: the work is idempotent (docs/operations.md, "A full Redis").
        await this.sweepShard(shard, now, report);
      }
    }
    return report;
  }

  private async sweepShard(shard: number, now: number, report: RetentionReport): Promise<void> {
    const index = this.keys.retentionIndex(shard);
    const size = this.storage.archiveBatchSize;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const due = await this.redis.zrangebyscore(index, '-inf', now, 'WITHSCORES', 'LIMIT', 0, size);
      for (let i = 0; i < due.length; i += 2) {
        const startedAt = Date.now();
        const bytesBefore = report.archivedBytes;
        const outcome = await this.retire(index, due[i], Number(due[i + 1]), now, report);
        if (outcome !== 'gone') report[outcome]++;
        this.trace(due[i], outcome, startedAt, report.archivedBytes - bytesBefore);
      }
      if (due.length < size * 2) return;
    }
  }

  private async retire(
    index: string,
    taskId: string,
    expiredAt: number,
    now: number,
    report: RetentionReport,
  ): Promise<Outcome> {
    try {
      const payload = await this.writer.collect(taskId, expiredAt);
      const task = payload && decodeTask(payload.record);
      if (!payload || !task || !TERMINAL_STATUSES.includes(task.status)) {
        // Gone already, or an entry that should never be (a terminal status is never left).
        await this.redis.zrem(index, taskId);
        return 'gone';
      }
      if (task.parentId && (await this.redis.exists(this.keys.task(task.parentId))))
        return this.postpone(index, taskId, task.parentId, now);
      let bytes = 0;
      if (this.storage.archive) bytes = await this.writer.write(payload);
      const removed = await this.lifecycle.removeExpired({
        id: task.id,
        tenantId: task.tenantId,
        parentId: task.parentId ?? null,
        finishedAt: Number(payload.record.finishedAt),
      });
      if (removed === 'parent_live') return this.postpone(index, taskId, task.parentId!, now);
      if (removed !== 'removed') return 'gone';
      if (!this.storage.archive) return 'deleted';
      report.archivedBytes += bytes;
      return 'archived';
    } catch (error) {
      this.logger.warn(`task ${taskId} stays in Redis: ${String(error)}`);
      await this.redis
        .zadd(index, 'XX', now + FAILURE_BACKOFF_MS, taskId)
        .catch((backoff: unknown) => this.logger.warn(`retention index of ${taskId}: ${String(backoff)}`));
      return 'failed';
    }
  }

  /** The task's last span, under its root (docs/observability.md, "Spans and attributes"). */
  private trace(taskId: string, outcome: Outcome, startedAt: number, bytes: number): void {
    if (!this.tracing.enabled || outcome === 'gone') return;
    const span = this.tracing.start(
      'vigil.retention',
      { taskId },
      {
        startTime: startedAt,
        attributes: {
          [VIGIL.taskId]: taskId,
          [VIGIL.archiveOutcome]: outcome,
          [VIGIL.archiveBytes]: outcome === 'archived' ? bytes : undefined,
        },
      },
    );
    if (outcome === 'failed') span.fail('the archive was not written or did not read back', 'archive_failed');
    span.end();
  }

  /** A child waits for its parent: until the parent's own retention ends, or a full retention if it is live. */
  private async postpone(index: string, taskId: string, parentId: string, now: number): Promise<Outcome> {
    const parentDue = await this.redis.zscore(index, parentId);
    const at = Math.max(
      now + 1,
      parentDue === null ? now + this.storage.taskRetentionMs : Number(parentDue) + 1,
    );
    await this.redis.zadd(index, 'XX', at, taskId);
    return 'postponed';
  }
}
