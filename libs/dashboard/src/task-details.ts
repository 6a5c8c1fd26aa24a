import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { CLOCKS_CONFIG, ClockConfig } from '@vigil/config';
import { parseTaskEvent, TaskEvent } from '@vigil/events';
import { REDIS, RedisKeys } from '@vigil/redis';
import {
  ActionRecord,
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
  verification: { rows: VerificationRow[]; at: number | null; passed: boolean | null };
  /** `children{total, running, done}` once tasks have children (absent until then). */
  children: unknown;
  controls: { stop: boolean; pause: boolean; resume: boolean };
}

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
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly tasks: TaskRepository,
    @Inject(CLOCKS_CONFIG) private readonly clocks: ClockConfig,
  ) {}

  async read(taskId: string, controls: ControlStates, now = Date.now()): Promise<TaskDetails> {
    const task = await this.tasks.get(taskId);
    if (!task) throw new TaskNotFoundError(taskId);
    const replies = (await this.redis
      .pipeline()
      .llen(this.keys.actions(taskId))
      .lrange(this.keys.actions(taskId), -LOG_TAIL, -1)
      .llen(this.keys.findings(taskId))
      .lrange(this.keys.findings(taskId), -LOG_TAIL, -1)
      .llen(this.keys.messages(taskId))
      .lrange(this.keys.messages(taskId), -LOG_TAIL, -1)
      .exec()) as [Error | null, unknown][];
    const [actionCount, actions, findingCount, findings, messageCount, messages] = replies.map(
      ([error, value]) => {
        if (error) throw error;
        return value;
      },
    );
    const parse = (raw: unknown) => (raw as string[]).map((entry) => JSON.parse(entry) as unknown);
    const { events, complete } = await this.events(task);
    return {
      task,
      row: toTaskRow(task, now, this.clocks.staleAfterMs),
      timeline: buildTimeline(task, events),
      timelineComplete: complete,
      actions: { entries: parse(actions) as ActionRecord[], total: Number(actionCount) },
      findings: { entries: parse(findings), total: Number(findingCount) },
      messages: { entries: parse(messages) as UserMessage[], total: Number(messageCount) },
      verification: {
        rows: verificationRows(task.exitCriteria, task.verification?.checks),
        at: task.verification?.at ?? null,
        passed: task.verification?.passed ?? null,
      },
      children: (task as TaskRecord & { children?: unknown }).children ?? null,
      controls: {
        stop: controls.stop.includes(task.status),
        pause: controls.pause.includes(task.status),
        resume: controls.resume.includes(task.status),
      },
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
