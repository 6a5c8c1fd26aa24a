import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { CLOCKS_CONFIG, type ClockConfig, STORAGE_CONFIG, type StorageConfig } from '@vigil/config';
import { REDIS, RedisKeys } from '@vigil/redis';
import {
  decodeTask,
  type ForgetTarget,
  StoreFullError,
  TaskArchiveWriter,
  TaskLifecycle,
  TERMINAL_STATUSES,
  type TaskStatus,
} from '@vigil/tasks';
import { NOOP_TRACING, TRACING, VIGIL, type Tracing } from '@vigil/telemetry';
import { LeaseService } from './lease.service';
import { archiveCutoff } from './retention-pace';

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
/**
 * Tasks of a batch retired at once: their object-store writes and read-backs overlap (a file
 * store's fsyncs are committed together, an S3 round trip waits beside the others), bounded so a
 * sweep never floods the store nor holds the Watcher's event loop from its other work.
 */
const LANES = 8;
/** A task whose archive failed is tried again after this, so it does not head every batch. */
const FAILURE_BACKOFF_MS = 60_000;

type Outcome = 'archived' | 'deleted' | 'failed' | 'postponed' | 'gone';

/**
 * Moves finished tasks whose retention ran out out of Redis (docs/operations.md, "Retention and
 * archives"). Found through each shard's retention index (transition-task.lua adds a task when it
 * ends), a shard at a time under its lease, in bounded batches, paced by `archiveCutoff`. A task is archived, read back and
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
        await this.leases.withRetentionLease(shard, ttlMs, this.owner, async () =>
          this.sweepShard(shard, await this.cutoff(shard, now), now, report),
        );
      } catch (error) {
        if (!(error instanceof StoreFullError)) throw error;
        // A full Redis refuses the lease (a write) but not the deletes that free it, so the shard is
        // swept without it, and without waiting for a quiet moment: the work is idempotent
        // (docs/operations.md, "A full Redis").
        await this.sweepShard(shard, now, now, report);
      }
    }
    return report;
  }

  /** The latest expiry taken on the shard now: up to now, or `archiveBusyLagMs` back while tasks run. */
  private async cutoff(shard: number, now: number): Promise<number> {
    const lagMs = this.storage.archiveBusyLagMs;
    if (lagMs === 0) return now;
    const [active, verifying] = await Promise.all([
      this.redis.zcard(this.keys.deadlineIndex(shard)),
      this.redis.zcard(this.keys.verifyingIndex(shard)),
    ]);
    return archiveCutoff(now, active + verifying, lagMs);
  }

  private async sweepShard(
    shard: number,
    cutoff: number,
    now: number,
    report: RetentionReport,
  ): Promise<void> {
    const index = this.keys.retentionIndex(shard);
    const size = this.storage.archiveBatchSize;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const due = await this.redis.zrangebyscore(index, '-inf', cutoff, 'WITHSCORES', 'LIMIT', 0, size);
      const entries: [string, number][] = [];
      for (let i = 0; i < due.length; i += 2) entries.push([due[i], Number(due[i + 1])]);
      await inLanes(entries, LANES, async ([taskId, expiredAt]) => {
        const startedAt = Date.now();
        const bytesBefore = report.archivedBytes;
        const outcome = await this.retire(index, taskId, expiredAt, now, report);
        if (outcome !== 'gone') report[outcome]++;
        this.trace(taskId, outcome, startedAt, report.archivedBytes - bytesBefore);
      });
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
      return this.storage.archive
        ? await this.archive(index, taskId, expiredAt, now, report)
        : await this.delete(index, taskId, now);
    } catch (error) {
      this.logger.warn(`task ${taskId} stays in Redis: ${String(error)}`);
      await this.redis
        .zadd(index, 'XX', now + FAILURE_BACKOFF_MS, taskId)
        .catch((backoff: unknown) => this.logger.warn(`retention index of ${taskId}: ${String(backoff)}`));
      return 'failed';
    }
  }

  /** The whole task, collected in one round trip, written, read back and checked, then removed. */
  private async archive(
    index: string,
    taskId: string,
    expiredAt: number,
    now: number,
    report: RetentionReport,
  ): Promise<Outcome> {
    const payload = await this.writer.collect(taskId, expiredAt);
    const task = payload && decodeTask(payload.record);
    if (!payload || !task || !TERMINAL_STATUSES.includes(task.status)) return this.drop(index, taskId);
    // Checked before the write, so a child whose parent stays is not archived for nothing.
    if (task.parentId && (await this.redis.exists(this.keys.task(task.parentId))))
      return this.postpone(index, taskId, task.parentId, now);
    const bytes = await this.writer.write(payload);
    const target = {
      id: task.id,
      tenantId: task.tenantId,
      parentId: task.parentId ?? null,
      finishedAt: Number(payload.record.finishedAt),
    };
    const outcome = await this.remove(index, target, now);
    if (outcome !== 'removed') return outcome;
    report.archivedBytes += bytes;
    return 'archived';
  }

  /**
   * ARCHIVE=off: only what forget-task.lua's guard needs is read, never the whole task or its
   * report; the script itself keeps a child whose parent is still in Redis.
   */
  private async delete(index: string, taskId: string, now: number): Promise<Outcome> {
    const [status, finishedAt, tenantId, parentId] = await this.redis.hmget(
      this.keys.task(taskId),
      'status',
      'finishedAt',
      'tenantId',
      'parentId',
    );
    if (!status || !tenantId || !TERMINAL_STATUSES.includes(status as TaskStatus))
      return this.drop(index, taskId);
    const target = { id: taskId, tenantId, parentId: parentId || null, finishedAt: Number(finishedAt) };
    const outcome = await this.remove(index, target, now);
    return outcome === 'removed' ? 'deleted' : outcome;
  }

  private async remove(index: string, target: ForgetTarget, now: number): Promise<Outcome | 'removed'> {
    const removed = await this.lifecycle.removeExpired(target);
    if (removed === 'parent_live') return this.postpone(index, target.id, target.parentId!, now);
    return removed === 'removed' ? 'removed' : 'gone';
  }

  /** Gone already, or an entry that should never be (a terminal status is never left). */
  private async drop(index: string, taskId: string): Promise<Outcome> {
    await this.redis.zrem(index, taskId);
    return 'gone';
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

  /**
   * A child waits for its parent: until the parent's own retention ends, or a full retention if it
   * is live. A parent that left meanwhile (retired by another lane of the same batch) lets the
   * child go at the next sweep.
   */
  private async postpone(index: string, taskId: string, parentId: string, now: number): Promise<Outcome> {
    const [parentDue, parentStays] = await Promise.all([
      this.redis.zscore(index, parentId),
      this.redis.exists(this.keys.task(parentId)),
    ]);
    const at = Math.max(
      now + 1,
      parentDue !== null ? Number(parentDue) + 1 : parentStays ? now + this.storage.taskRetentionMs : now + 1,
    );
    await this.redis.zadd(index, 'XX', at, taskId);
    return 'postponed';
  }
}

/** Runs `work` over `items`, at most `lanes` at once. */
async function inLanes<T>(items: T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
}
