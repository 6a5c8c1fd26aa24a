import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ADMIN_CONFIG, AdminConfig, CLOCKS_CONFIG, ClockConfig } from '@vigil/config';
import { parseTaskEvent, TaskEvent } from '@vigil/events';
import { REDIS, RedisKeys } from '@vigil/redis';
import {
  ActionRecord,
  ArchivedTasks,
  ArtifactEntry,
  decodeArtifactEntries,
  archivedTaskRecord,
  CheckResult,
  ExitCriterion,
  TaskNotFoundError,
  TaskRecord,
  TaskRepository,
  TaskStatus,
  UserMessage,
} from '@vigil/tasks';
import { buildTimeline, TimelineEntry } from './timeline';
import { TaskRow, toTaskRow } from './task-row';

/** The newest entries of each log the page shows; the API pages through all of them. */
export const LOG_TAIL = 100;
/** Stream entries read to find one task's events; past this the timeline relies on retryHistory. */
export const MAX_EVENTS_SCANNED = 10_000;
const EVENT_BATCH = 1_000;
/** A task's first event is no older than this before its createdAt (clocks of two processes). */
const CLOCK_SKEW_MS = 60_000;

/** The states each button acts on, as the control use cases define them (libs/control CONTROL_FROM). */
export type ControlStates = Record<'stop' | 'pause' | 'resume', readonly TaskStatus[]>;

export interface LogTail<T> {
  entries: T[];
  total: number;
}

/** One exit criterion with its last result, expected against actual. */
export interface VerificationRow {
  check: string;
  expected: unknown;
  actual: unknown;
  passed: boolean | null;
  detail: string | null;
}

export interface TaskDetails {
  task: TaskRecord;
  row: TaskRow;
  timeline: TimelineEntry[];
  /** False when the task's early events have left the capped event stream (or lie past the scan bound). */
  timelineComplete: boolean;
  actions: LogTail<ActionRecord>;
  findings: LogTail<unknown>;
  messages: LogTail<UserMessage>;
  /** The newest LOG_TAIL entries of the task's artifact list: what its thumbnails show. */
  artifacts: ArtifactEntry[];
  verification: { rows: VerificationRow[]; at: number | null; passed: boolean | null };
  /** `children{total, running, done}` once tasks have children (absent until then). */
  children: unknown;
  controls: { stop: boolean; pause: boolean; resume: boolean };
  /** Read from the task's archive in the object store: finished, read-only, no control applies. */
  fromArchive: boolean;
}

/** A task's stored logs, as the page reads them: the newest LOG_TAIL entries and the count. */
interface StoredLogs {
  task: TaskRecord;
  actions: LogTail<string>;
  findings: LogTail<string>;
  messages: LogTail<string>;
  artifacts: readonly string[];
  fromArchive: boolean;
}

const tailOf = (entries: readonly string[]): LogTail<string> => ({
  entries: entries.slice(-LOG_TAIL),
  total: entries.length,
});

/** Joins each exit criterion with its result in the last verification. */
export function verificationRows(
  criteria: ExitCriterion[],
  checks: CheckResult[] | undefined,
): VerificationRow[] {
  const rows: VerificationRow[] = criteria.map((criterion, i) => {
    const result = checks?.[i]?.check === criterion.check ? checks[i] : undefined;
    return {
      check: criterion.check,
      expected: result?.expected ?? criterion.expected,
      actual: result ? result.actual : undefined,
      passed: result ? result.passed : null,
      detail: result?.detail ?? null,
    };
  });
  // Checks the verification ran beyond the criteria list (none today) still show.
  for (const extra of checks?.slice(criteria.length) ?? [])
    rows.push({ ...extra, detail: extra.detail ?? null });
  return rows;
}

/**
 * Everything the task page shows, read without writing: the record, the tails of its logs in one
 * pipeline, and its events from the shard's stream (docs/operations.md, "The task dashboard").
 */
@Injectable()
export class TaskDetailsReader {
  private readonly tenants: string[];

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly tasks: TaskRepository,
    private readonly archives: ArchivedTasks,
    @Inject(CLOCKS_CONFIG) private readonly clocks: ClockConfig,
    @Inject(ADMIN_CONFIG) admin: AdminConfig,
  ) {
    this.tenants = [...new Set(admin.apiKeys.map((key) => key.tenantId))];
  }

  async read(taskId: string, controls: ControlStates, now = Date.now()): Promise<TaskDetails> {
    const stored = (await this.live(taskId)) ?? (await this.archived(taskId));
    if (!stored) throw new TaskNotFoundError(taskId);
    const { task } = stored;
    const parse = <T>(tail: LogTail<string>): LogTail<T> => ({
      entries: tail.entries.map((entry) => JSON.parse(entry) as T),
      total: tail.total,
    });
    const { events, complete } = await this.events(task);
    const artifacts = decodeArtifactEntries(stored.artifacts);
    const allows = (states: readonly TaskStatus[]) => !stored.fromArchive && states.includes(task.status);
    return {
      task,
      row: toTaskRow(task, now, this.clocks.staleAfterMs),
      timeline: buildTimeline(task, events, artifacts),
      timelineComplete: complete,
      actions: parse<ActionRecord>(stored.actions),
      findings: parse<unknown>(stored.findings),
      messages: parse<UserMessage>(stored.messages),
      artifacts,
      verification: {
        rows: verificationRows(task.exitCriteria, task.verification?.checks),
        at: task.verification?.at ?? null,
        passed: task.verification?.passed ?? null,
      },
      children: (task as TaskRecord & { children?: unknown }).children ?? null,
      controls: {
        stop: allows(controls.stop),
        pause: allows(controls.pause),
        resume: allows(controls.resume),
      },
      fromArchive: stored.fromArchive,
    };
  }

  /** The tenant of a task Redis no longer holds, from its archive; null when it has none. */
  async archivedTenantOf(taskId: string): Promise<string | null> {
    return (await this.archived(taskId))?.task.tenantId ?? null;
  }

  /** The record and the tails of its logs in one pipeline; null when Redis holds no such task. */
  private async live(taskId: string): Promise<StoredLogs | null> {
    const task = await this.tasks.get(taskId);
    if (!task) return null;
    const replies = (await this.redis
      .pipeline()
      .llen(this.keys.actions(taskId))
      .lrange(this.keys.actions(taskId), -LOG_TAIL, -1)
      .llen(this.keys.findings(taskId))
      .lrange(this.keys.findings(taskId), -LOG_TAIL, -1)
      .llen(this.keys.messages(taskId))
      .lrange(this.keys.messages(taskId), -LOG_TAIL, -1)
      .lrange(this.keys.artifacts(taskId), -LOG_TAIL, -1)
      .exec()) as [Error | null, unknown][];
    const [actionCount, actions, findingCount, findings, messageCount, messages, artifacts] = replies.map(
      ([error, value]) => {
        if (error) throw error;
        return value;
      },
    );
    return {
      task,
      actions: { entries: actions as string[], total: Number(actionCount) },
      findings: { entries: findings as string[], total: Number(findingCount) },
      messages: { entries: messages as string[], total: Number(messageCount) },
      artifacts: artifacts as string[],
      fromArchive: false,
    };
  }

  /**
   * An archived task, looked for under each tenant API_KEYS names (the operator's page has no
   * tenant; a task id is unique across tenants, so at most one holds it).
   */
  private async archived(taskId: string): Promise<StoredLogs | null> {
    const found = await Promise.all(this.tenants.map((tenantId) => this.archives.find(tenantId, taskId)));
    const archive = found.find((payload) => payload !== null);
    if (!archive) return null;
    return {
      task: archivedTaskRecord(archive),
      actions: tailOf(archive.actions),
      findings: tailOf(archive.findings),
      messages: tailOf(archive.messages),
      artifacts: archive.artifacts.slice(-LOG_TAIL),
      fromArchive: true,
    };
  }

  /** The task's events, read from its creation on, at most MAX_EVENTS_SCANNED stream entries. */
  private async events(task: TaskRecord): Promise<{ events: TaskEvent[]; complete: boolean }> {
    const shard = this.keys.shardOf(task.id);
    const stream = this.keys.events(shard);
    const start = Math.max(0, task.createdAt - CLOCK_SKEW_MS);
    const end = task.finishedAt === null ? '+' : String(task.finishedAt + CLOCK_SKEW_MS);
    const events: TaskEvent[] = [];
    let cursor = `${start}-0`;
    for (let scanned = 0; ;) {
      const batch = await this.redis.xrange(stream, cursor, end, 'COUNT', EVENT_BATCH);
      for (const [id, fields] of batch) {
        const event = parseTaskEvent(shard, id, fields);
        if (event.taskId === task.id) events.push(event);
      }
      scanned += batch.length;
      if (batch.length < EVENT_BATCH || scanned >= MAX_EVENTS_SCANNED) break;
      cursor = `(${batch[batch.length - 1][0]}`;
    }
    // The stream is capped (EVENT_STREAM_MAXLEN): without its task.created the early part is gone.
    return { events, complete: events.some((event) => event.type === 'task.created') };
  }
}
