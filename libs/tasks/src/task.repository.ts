import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { BoundedMemo, crossSlotPipeline, REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode, scriptRefusal } from './scripts/script-codes';
import { TaskScripts } from './scripts/task-scripts';
import { ChildKeys } from './children/child-keys';
import { decodeTask, encodeNewTask, JSON_FIELDS } from './task-codec';
import { IdempotencyConflictError, InvalidCursorError, TaskNotFoundError } from './task-errors';
import { TASK_STATUSES, TERMINAL_STATUSES, TaskStatus } from './task-status';
import type { FailureReason, InFlightCall, NewTask, TaskRecord } from './task.types';

export interface TransitionOptions {
  /** The writer's attempt; omitted only for operator actions (stop, pause, resume, input). */
  attempt?: number;
  /** Compare-and-set: apply only if the stored status is one of these. */
  from?: TaskStatus[];
  fields?: Record<string, string | number | object | null>;
  /**
   * Marks the current attempt failed: appended to retryHistory (with what the attempt spent and
   * who ran it, from the record) and the attempt bumped. retryCount counts retries that ran: the
   * Watcher increments it when it publishes one.
   */
  failedAttempt?: { model: string; reason: FailureReason; detail?: string };
  eventType?: string;
  eventData?: Record<string, unknown>;
  increments?: Record<string, number>;
  deadlineMs?: number;
}

export interface TransitionResult {
  status: TaskStatus;
  attempt: number;
  /**
   * Slices the transition made due (docs/missions.md, "Child missions"): children given a
   * place when a child ended, a parent queued when its last child ended. The Watcher's sweep
   * publishes them anyway; a caller that publishes them at once saves a sweep interval.
   */
  due: DueSlice[];
}

export interface DueSlice {
  taskId: string;
  attempt: number;
  slice: number;
}

/** Who is transitioned: the id and tenant, and the parent when the caller has the record. */
export type TransitionTarget = Pick<TaskRecord, 'id' | 'tenantId'> & { parentId?: string | null };

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
type TransitionReply = [number, string, number, string];

function stringifyFields(fields: TransitionOptions['fields']): string {
  if (!fields) return '';
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    // Structured fields are always JSON, even when the value is a bare string.
    out[name] =
      value === null
        ? ''
        : typeof value === 'object' || JSON_FIELDS.has(name)
          ? JSON.stringify(value)
          : String(value);
  }
  return JSON.stringify(out);
}

/** Tenant-and-shard key lists kept (transitionKeys): far more than a deployment's tenants × shards. */
const SHARD_KEY_CACHE_SIZE = 10_000;

/** The task record in Redis: every write goes through a Lua script; reads decode the hash. */
@Injectable()
export class TaskRepository {
  private readonly shardKeys = new BoundedMemo<readonly string[]>(SHARD_KEY_CACHE_SIZE);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
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

  private transitionKeys(task: Pick<TaskRecord, 'id' | 'tenantId'>, parentId: string | null): string[] {
    const shard = this.keys.shardOf(task.id);
    const children = new ChildKeys(this.keys);
    // Without a parent the child keys are the task's own: unused, and in its slot.
    const parent = parentId ?? task.id;
    const keys = [this.keys.task(task.id)];
    for (const key of this.shardTransitionKeys(shard, task.tenantId)) keys.push(key);
    keys.push(this.keys.task(parent), children.running(parent), children.held(parent));
    return keys;
  }

  /** KEYS[2..17] of transition-task.lua: the same for every task of a tenant on a shard, so built once. */
  private shardTransitionKeys(shard: number, tenantId: string): readonly string[] {
    const cacheKey = `${shard}:${tenantId}`;
    const kept = this.shardKeys.get(cacheKey);
    if (kept) return kept;
    return this.shardKeys.set(cacheKey, [
      this.keys.events(shard),
      this.keys.deadlineIndex(shard),
      this.keys.verifyingIndex(shard),
      this.keys.expiryIndex(shard),
      this.keys.updatesIndex(shard),
      ...TASK_STATUSES.map((status) => this.keys.tenantStatusIndex(shard, tenantId, status)),
      this.keys.callDeadlineIndex(shard),
    ]);
  }

  private transitionArgs(
    task: Pick<TaskRecord, 'id'>,
    to: TaskStatus,
    options: TransitionOptions,
    now: number,
  ): (string | number)[] {
    return [
      task.id,
      to,
      options.attempt === undefined ? '' : options.attempt,
      options.from ? options.from.join(',') : '',
      now,
      options.deadlineMs ?? now + this.config.staleAfterMs,
      stringifyFields(options.fields),
      options.failedAttempt ? JSON.stringify({ ...options.failedAttempt, result: 'failed' }) : '',
      options.eventType ?? '',
      options.eventData ? JSON.stringify(options.eventData) : '',
      this.config.eventStreamMaxLen,
      options.increments ? JSON.stringify(options.increments) : '',
      this.config.taskMaxDurationMs,
      this.config.humanWaitTimeoutMs,
      this.config.maxParallelChildren,
    ];
  }

  /** The one way a task's status changes. Throws a typed error when the script refuses. */
  async transition(
    task: TransitionTarget,
    to: TaskStatus,
    options: TransitionOptions = {},
    now = Date.now(),
  ): Promise<TransitionResult> {
    // parentId is set at creation and never changes: reading it here decides nothing about state.
    const parentId =
      task.parentId !== undefined
        ? task.parentId
        : TERMINAL_STATUSES.includes(to)
          ? ((await this.redis.hget(this.keys.task(task.id), 'parentId')) ?? '') || null
          : null;
    const [code, status, attempt, due] = await this.scripts.run<TransitionReply>(
      'transition-task',
      this.transitionKeys(task, parentId),
      this.transitionArgs(task, to, options, now),
    );
    if (code !== ScriptCode.Applied)
      throw scriptRefusal(code, task.id, {
        status: status as TaskStatus,
        storedAttempt: attempt,
        writerAttempt: options.attempt,
        to,
      });
    const slices = JSON.parse(due || '[]') as unknown;
    return {
      status: status as TaskStatus,
      attempt,
      due: Array.isArray(slices) ? (slices as DueSlice[]) : [],
    };
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
    const fields: Record<string, string> = {};
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
