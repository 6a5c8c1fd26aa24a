import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { InvalidCursorError, ScheduleScriptCode, TaskScripts } from '@vigil/tasks';
import { ScheduleBusyError, ScheduleLimitError, ScheduleNotFoundError } from './schedule-errors';
import type { RunOutcome, Schedule, ScheduleRun, ScheduleSpec, ScheduleState } from './schedule.types';

/** Runs one schedule keeps, newest first; older runs are dropped (their tasks stay). */
export const RUNS_KEPT = 500;

export interface Page<T> {
  data: T[];
  nextCursor?: string;
}

/** What claiming a fire answered (claim-schedule-fire.lua). */
export type FireClaim =
  | { state: 'claimed'; schedule: Schedule }
  | { state: 'duplicate'; run: ScheduleRun }
  | { state: 'not_found' }
  | { state: 'paused' };

function scheduleOf(flat: string[]): Schedule {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
  const spec = JSON.parse(fields.spec) as ScheduleSpec;
  return {
    id: fields.id,
    tenantId: fields.tenantId,
    ...spec,
    state: fields.state as ScheduleState,
    createdAt: Number(fields.createdAt),
    updatedAt: Number(fields.updatedAt),
    ...(fields.lastTaskId ? { lastTaskId: fields.lastTaskId } : {}),
    ...(fields.lastFireTime ? { lastFireTime: Number(fields.lastFireTime) } : {}),
    ...(fields.lastOutcome ? { lastOutcome: fields.lastOutcome as RunOutcome } : {}),
  };
}

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^\d{1,9}$/.test(cursor)) throw new InvalidCursorError();
  return Number(cursor);
}

/**
 * Everything stored about schedules (docs/schedules.md, "What is stored"): the record, the runs,
 * the indexes, each write one script of libs/tasks/src/lua. A tenant's schedule is found only
 * with its tenant: another tenant's is not found.
 */
@Injectable()
export class ScheduleStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: TaskScripts,
  ) {}

  static newId(): string {
    return `sch_${randomBytes(12).toString('hex')}`;
  }

  async create(
    id: string,
    tenantId: string,
    spec: ScheduleSpec,
    limit: number,
    now = Date.now(),
  ): Promise<Schedule> {
    const [code, held] = await this.scripts.run<[number, number]>(
      'create-schedule',
      [this.keys.schedule(id), this.keys.tenantSchedules(tenantId), this.keys.allSchedules()],
      [id, tenantId, JSON.stringify(spec), now, limit],
    );
    if (code === ScheduleScriptCode.Limit) throw new ScheduleLimitError(held, limit);
    return this.get(tenantId, id);
  }

  /** Any tenant's schedule (the Watcher and the dashboard), or null. */
  async find(id: string): Promise<Schedule | null> {
    const flat = await this.redis.hgetall(this.keys.schedule(id));
    return flat.id ? scheduleOf(Object.entries(flat).flat()) : null;
  }

  async get(tenantId: string, id: string): Promise<Schedule> {
    const schedule = await this.find(id);
    if (!schedule || schedule.tenantId !== tenantId) throw new ScheduleNotFoundError(id);
    return schedule;
  }

  /** The tenant's schedules, newest first. */
  list(tenantId: string, limit: number, cursor?: string): Promise<Page<Schedule>> {
    return this.page(this.keys.tenantSchedules(tenantId), limit, cursor);
  }

  /** Every tenant's schedules, newest first (the dashboard). */
  listAll(limit: number, cursor?: string): Promise<Page<Schedule>> {
    return this.page(this.keys.allSchedules(), limit, cursor);
  }

  private async page(index: string, limit: number, cursor?: string): Promise<Page<Schedule>> {
    const offset = offsetOf(cursor);
    const ids = await this.redis.zrevrange(index, offset, offset + limit);
    const found = await Promise.all(ids.slice(0, limit).map((id) => this.find(id)));
    const data = found.filter((schedule): schedule is Schedule => schedule !== null);
    return ids.length > limit ? { data, nextCursor: String(offset + limit) } : { data };
  }

  async setState(tenantId: string, id: string, state: ScheduleState, now = Date.now()): Promise<Schedule> {
    const [code] = await this.scripts.run<[number, string]>(
      'set-schedule-state',
      [this.keys.schedule(id)],
      [tenantId, state, now],
    );
    if (code === ScheduleScriptCode.NotFound) throw new ScheduleNotFoundError(id);
    return this.get(tenantId, id);
  }

  async delete(tenantId: string, id: string): Promise<void> {
    const [code] = await this.scripts.run<[number]>(
      'delete-schedule',
      [
        this.keys.schedule(id),
        this.keys.scheduleRuns(id),
        this.keys.scheduleRunOrder(id),
        this.keys.tenantSchedules(tenantId),
        this.keys.allSchedules(),
      ],
      [tenantId, id],
    );
    if (code === ScheduleScriptCode.NotFound) throw new ScheduleNotFoundError(id);
  }

  /** Claims the fire at `fireTime`; another fire of the schedule being decided is ScheduleBusyError. */
  async claimFire(
    tenantId: string,
    id: string,
    fireTime: number,
    options: { manual: boolean; leaseMs: number; now?: number },
  ): Promise<FireClaim> {
    const [code, payload] = await this.scripts.run<[number, string | string[]]>(
      'claim-schedule-fire',
      [this.keys.schedule(id), this.keys.scheduleRuns(id)],
      [tenantId, fireTime, options.now ?? Date.now(), options.leaseMs, options.manual ? 1 : 0],
    );
    switch (code) {
      case ScheduleScriptCode.Claimed:
        return { state: 'claimed', schedule: scheduleOf(payload as string[]) };
      case ScheduleScriptCode.Duplicate:
        return { state: 'duplicate', run: JSON.parse(payload as string) as ScheduleRun };
      case ScheduleScriptCode.NotFound:
        return { state: 'not_found' };
      case ScheduleScriptCode.Paused:
        return { state: 'paused' };
      case ScheduleScriptCode.Busy:
        throw new ScheduleBusyError(id, payload as string);
      default:
        throw new Error(`claim-schedule-fire returned unknown code ${code}`);
    }
  }

  /**
   * Records a fire's run; `release`: the claimed fire time whose claim it ends. `onlyIfAbsent`: a
   * missed fire time beside a late one never overwrites a run recorded for it. False when nothing
   * was written.
   */
  async recordRun(
    id: string,
    run: ScheduleRun,
    options: { release?: number; onlyIfAbsent?: boolean } = {},
  ): Promise<boolean> {
    const [code] = await this.scripts.run<[number]>(
      'record-schedule-run',
      [this.keys.schedule(id), this.keys.scheduleRuns(id), this.keys.scheduleRunOrder(id)],
      [
        run.fireTime,
        JSON.stringify(run),
        run.taskId ?? '',
        run.outcome,
        RUNS_KEPT,
        options.onlyIfAbsent ? 1 : 0,
        options.release ?? '',
      ],
    );
    return code === ScheduleScriptCode.Applied;
  }

  /** The run recorded for a fire time, if any. */
  async runAt(id: string, fireTime: number): Promise<ScheduleRun | undefined> {
    const entry = await this.redis.hget(this.keys.scheduleRuns(id), String(fireTime));
    return entry ? (JSON.parse(entry) as ScheduleRun) : undefined;
  }

  /** A schedule's runs, newest fire time first. */
  async runs(tenantId: string, id: string, limit: number, cursor?: string): Promise<Page<ScheduleRun>> {
    await this.get(tenantId, id);
    return this.runPage(id, limit, cursor);
  }

  async runPage(id: string, limit: number, cursor?: string): Promise<Page<ScheduleRun>> {
    const offset = offsetOf(cursor);
    const times = await this.redis.zrevrange(this.keys.scheduleRunOrder(id), offset, offset + limit);
    const shown = times.slice(0, limit);
    const entries = shown.length ? await this.redis.hmget(this.keys.scheduleRuns(id), ...shown) : [];
    const data = entries
      .filter((entry): entry is string => entry !== null)
      .map((entry) => JSON.parse(entry) as ScheduleRun);
    return times.length > limit ? { data, nextCursor: String(offset + limit) } : { data };
  }
}
