import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { crossSlotPipeline, REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode, scriptRefusal } from './scripts/script-codes';
import { TaskScripts } from './scripts/task-scripts';
import { TASK_SETTINGS, type TaskSettings } from './task-settings';
import { decodeTask, encodeNewTask } from './task-codec';
import { IdempotencyConflictError, InvalidCursorError, TaskNotFoundError } from './task-errors';
import { TASK_STATUSES, TERMINAL_STATUSES, TaskStatus } from './task-status';
import type { HeartbeatProgress } from './task-event-data';
import type { InFlightCall, NewTask, TaskRecord } from './task.types';

export interface Progress {
  currentStep?: string;
  completedUnits?: number;
  totalUnits?: number;
}

/** What a heartbeat reports beside progress: the call in flight (none: null) and the event-loop lag. */
export interface Liveness {
  inFlight?: InFlightCall | null;
  loopLagMs?: number;
}

export interface TaskPage {
  data: TaskRecord[];
  nextCursor?: string;
}

type ScriptReply = [number, string, number];

/**
 * The task record in Redis: creation, heartbeats, sweeps and reads. Every write goes through a Lua
 * script; a status changes only through TaskLifecycle (lifecycle/).
 */
@Injectable()
export class TaskRepository {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(TASK_SETTINGS)
    private readonly config: Pick<
      TaskSettings,
      'staleAfterMs' | 'taskMaxDurationMs' | 'userUpdateIntervalMs' | 'eventStreamMaxLen'
    >,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  static newTaskId(): string {
    return `tsk_${randomBytes(12).toString('hex')}`;
  }

  async create(
    id: string,
    task: NewTask,
    requestHash = '',
    now = Date.now(),
  ): Promise<{ task: TaskRecord; created: boolean }> {
    const shard = this.keys.shardOf(id);
    const [code] = await this.scripts.run<[number, string]>(
      'create-task',
      [
        this.keys.task(id),
        this.keys.tenantIndex(shard, task.tenantId),
        this.keys.tenantStatusIndex(shard, task.tenantId, 'queued'),
        this.keys.events(shard),
        this.keys.deadlineIndex(shard),
        this.keys.expiryIndex(shard),
        this.keys.updatesIndex(shard),
      ],
      [
        id,
        JSON.stringify(encodeNewTask(id, task, now)),
        requestHash,
        now,
        now + this.config.staleAfterMs,
        now + this.config.taskMaxDurationMs,
        now + this.config.userUpdateIntervalMs,
        this.config.eventStreamMaxLen,
      ],
    );
    if (code === ScriptCode.IdempotencyConflict) throw new IdempotencyConflictError(id);
    const stored = await this.get(id);
    if (!stored) throw new TaskNotFoundError(id);
    return { task: stored, created: code === ScriptCode.Created };
  }

  async get(id: string): Promise<TaskRecord | null> {
    return decodeTask(await this.redis.hgetall(this.keys.task(id)));
  }

  async getForTenant(id: string, tenantId: string): Promise<TaskRecord> {
    const task = /^[A-Za-z0-9_-]{1,80}$/.test(id) ? await this.get(id) : null;
    // Another tenant's task is indistinguishable from a missing one.
    if (!task || task.tenantId !== tenantId) throw new TaskNotFoundError(id);
    return task;
  }

  /** Fenced heartbeat with progress; throws when the writer must abandon its slice. */
  async heartbeat(
    taskId: string,
    attempt: number,
    progress: Progress & Liveness,
    emitEvent: boolean,
    now = Date.now(),
  ): Promise<void> {
    const shard = this.keys.shardOf(taskId);
    // The task.progress event's data too (task-event-data.ts).
    const fields: HeartbeatProgress = {};
    if (progress.currentStep !== undefined) fields.currentStep = progress.currentStep;
    if (progress.completedUnits !== undefined) fields.completedUnits = String(progress.completedUnits);
    if (progress.totalUnits !== undefined) fields.totalUnits = String(progress.totalUnits);
    if (progress.inFlight !== undefined)
      fields.inFlight = progress.inFlight ? JSON.stringify(progress.inFlight) : '';
    if (progress.loopLagMs !== undefined) fields.loopLagMs = String(Math.round(progress.loopLagMs));
    const [code, status, stored] = await this.scripts.run<ScriptReply>(
      'heartbeat-task',
      [
        this.keys.task(taskId),
        this.keys.events(shard),
        this.keys.deadlineIndex(shard),
        this.keys.callDeadlineIndex(shard),
      ],
      [
        attempt,
        now,
        now + this.config.staleAfterMs,
        JSON.stringify(fields),
        this.config.eventStreamMaxLen,
        emitEvent ? '1' : '0',
        progress.inFlight ? progress.inFlight.deadlineAt : '',
      ],
    );
    if (code !== ScriptCode.Applied)
      throw scriptRefusal(code, taskId, {
        status: status as TaskStatus,
        storedAttempt: stored,
        writerAttempt: attempt,
      });
  }

  /**
   * Moves a task's score in a sweep index (a queued task whose job still waits, a check to retry
   * later) if it is still in the status and attempt the caller saw; false if it moved on.
   */
  async deferSweep(
    task: Pick<TaskRecord, 'id' | 'status' | 'attempt'>,
    index: 'deadline' | 'verifying' | 'calls' | 'expiry',
    at: number,
  ): Promise<boolean> {
    const shard = this.keys.shardOf(task.id);
    const key = {
      deadline: this.keys.deadlineIndex(shard),
      verifying: this.keys.verifyingIndex(shard),
      calls: this.keys.callDeadlineIndex(shard),
      expiry: this.keys.expiryIndex(shard),
    }[index];
    const [code] = await this.scripts.run<[number]>(
      'touch-index',
      [this.keys.task(task.id), key],
      [task.id, task.status, String(task.attempt), at],
    );
    return code === ScriptCode.Applied;
  }

  /**
   * A tenant's tasks per status, from its status indexes: one ZCARD per shard and status in one
   * pipeline, never a scan (read-only).
   */
  async countByStatus(tenantId: string): Promise<Record<TaskStatus, number>> {
    const pipeline = crossSlotPipeline(this.redis);
    for (const shard of this.keys.allShards())
      for (const status of TASK_STATUSES)
        pipeline.zcard(this.keys.tenantStatusIndex(shard, tenantId, status));
    const replies = (await pipeline.exec()) ?? [];
    const counts = Object.fromEntries(TASK_STATUSES.map((status) => [status, 0])) as Record<
      TaskStatus,
      number
    >;
    replies.forEach(([error, count], i) => {
      if (error) throw error;
      counts[TASK_STATUSES[i % TASK_STATUSES.length]] += Number(count);
    });
    return counts;
  }

  /** How many of a tenant's tasks have not finished (every status but completed, failed, cancelled). */
  async countActive(tenantId: string): Promise<number> {
    const counts = await this.countByStatus(tenantId);
    return TASK_STATUSES.filter((status) => !TERMINAL_STATUSES.includes(status)).reduce(
      (sum, status) => sum + counts[status],
      0,
    );
  }

  /** Newest first, across every shard, with an opaque cursor of (createdAt, id). */
  async list(
    tenantId: string,
    options: { status?: TaskStatus; limit: number; cursor?: string },
  ): Promise<TaskPage> {
    const cursor = options.cursor ? decodeCursor(options.cursor) : undefined;
    const max = cursor ? `(${cursor.createdAt}` : '+inf';
    const pipeline = crossSlotPipeline(this.redis);
    for (const shard of this.keys.allShards()) {
      const index = options.status
        ? this.keys.tenantStatusIndex(shard, tenantId, options.status)
        : this.keys.tenantIndex(shard, tenantId);
      // Entries with the cursor's own timestamp are fetched separately so ties page correctly.
      if (cursor) pipeline.zrangebyscore(index, cursor.createdAt, cursor.createdAt);
      pipeline.zrevrangebyscore(index, max, '-inf', 'WITHSCORES', 'LIMIT', 0, options.limit + 1);
    }
    const replies = (await pipeline.exec()) ?? [];
    const candidates: { id: string; createdAt: number }[] = [];
    let reply = 0;
    for (let shard = 0; shard < this.keys.shards; shard++) {
      if (cursor) {
        const ties = replies[reply++][1] as string[];
        for (const id of ties) if (id < cursor.id) candidates.push({ id, createdAt: cursor.createdAt });
      }
      const flat = replies[reply++][1] as string[];
      for (let i = 0; i < flat.length; i += 2)
        candidates.push({ id: flat[i], createdAt: Number(flat[i + 1]) });
    }
    candidates.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const page = candidates.slice(0, options.limit);
    const records = await Promise.all(page.map((entry) => this.get(entry.id)));
    const data = records.filter((task): task is TaskRecord => task !== null);
    const last = page[page.length - 1];
    return candidates.length > options.limit && last
      ? { data, nextCursor: encodeCursor(last.createdAt, last.id) }
      : { data };
  }
}

function encodeCursor(createdAt: number, id: string): string {
  return Buffer.from(`${createdAt}:${id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString().split(':');
  if (!/^\d+$/.test(createdAt ?? '') || !id) throw new InvalidCursorError();
  return { createdAt: Number(createdAt), id };
}
