import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { decodeTask } from '../task-codec';
import type { TaskRecord } from '../task.types';
import { ContextReply } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';
import { readFinding, type Finding } from './finding';
import { readInstruction, type SteerInstruction } from '../steering/steering.types';
import { pageOfLog, type LogPage } from './log-page';
import {
  emptySliceContext,
  RECENT_ACTIONS,
  type ActionRecord,
  type HeldContext,
  type JournalEntry,
  type SliceContext,
  type TaskContext,
} from './history.types';

const parse = <T>(raw: string): T => JSON.parse(raw) as T;

type PipelineReplies = [Error | null, unknown][] | null;

function reply(replies: PipelineReplies, index: number): unknown {
  const [error, result] = replies?.[index] ?? [new Error('no reply'), null];
  if (error) throw error;
  return result;
}

type SliceReply =
  | [string, ContextReply.Held, string[]?]
  | [string, ContextReply.Included, string[], string[], string[], string[], string[]?];

/** A slice's start: the record, and its context: held and current, held but out of date (read), none held (read). */
export interface LoadedSlice<Plan = unknown> {
  task: TaskRecord | null;
  context: SliceContext;
  source: 'held' | 'stale' | 'none';
  /** The held entry, when it was current. */
  held?: HeldContext<Plan>;
  /** Every instruction given to the task while it ran, oldest first (docs/api.md, "Steering"). */
  steering: SteerInstruction[];
}

/** What is recorded beside a task's record, as Redis holds it (and a task's archive keeps it). */
export interface StoredContext {
  actions: readonly string[];
  doneSteps: readonly string[];
  outputs: Readonly<Record<string, string>>;
  findings: readonly string[];
  journal: Readonly<Record<string, string>>;
  /** The instructions given while it ran (absent in an archive written before they existed). */
  steering?: readonly string[];
}

/** The parts of a context a reader may leave unread (TaskContextStore.loadParts). */
export type ContextPart = 'actions' | 'doneSteps' | 'outputs';

/** A part of the context read that its load left out: a reader that did not say it needs it. */
export class ContextPartNotLoadedError extends Error {
  constructor(readonly part: string) {
    super(`the task's ${part} were not loaded: whoever reads them must ask for them`);
    this.name = 'ContextPartNotLoadedError';
  }
}

/**
 * The context decoded from its stored form: one decoding for a live task and an archived one. Each
 * part is decoded when first read: a check reads one or two (the noop kind's its done steps), and
 * the Watcher verifies every task once, with an action log as long as the task.
 */
export function contextOfStored(stored: StoredContext): TaskContext {
  return new StoredTaskContext(stored);
}

/** What TaskContextStore.loadParts reads: the findings, and the parts asked for. */
type PartialStoredContext = Pick<StoredContext, 'findings'> & Partial<Pick<StoredContext, ContextPart>>;

/** Each part decoded on first read and kept. Nothing writes a loaded context: its parts are getters. */
class StoredTaskContext implements TaskContext {
  private decoded: Partial<TaskContext> = {};

  constructor(private readonly stored: StoredContext | PartialStoredContext) {}

  private part<K extends keyof TaskContext>(name: K, decode: () => TaskContext[K]): TaskContext[K] {
    if (!(name in this.decoded)) this.decoded[name] = decode();
    return this.decoded[name] as TaskContext[K];
  }

  /** A part as stored; a load that left it out (loadParts) says so rather than answering empty. */
  private storedPart<K extends ContextPart | 'journal'>(name: K): StoredContext[K] {
    const stored = (this.stored as Partial<StoredContext>)[name];
    if (stored === undefined) throw new ContextPartNotLoadedError(name);
    return stored as StoredContext[K];
  }

  get actions(): ActionRecord[] {
    return this.part('actions', () => this.storedPart('actions').map((raw) => parse<ActionRecord>(raw)));
  }

  get recentActions(): ActionRecord[] | undefined {
    return this.part(
      'recentActions',
      () =>
        this.decoded.actions?.slice(-RECENT_ACTIONS) ??
        this.storedPart('actions')
          .slice(-RECENT_ACTIONS)
          .map((raw) => parse<ActionRecord>(raw)),
    );
  }

  get doneSteps(): Set<string> {
    return this.part('doneSteps', () => new Set(this.storedPart('doneSteps')));
  }

  get outputs(): Map<string, unknown> {
    return this.part('outputs', () => decodeMap<unknown>(this.storedPart('outputs')));
  }

  get findings(): Finding[] {
    return this.part('findings', () => this.stored.findings.map((raw) => readFinding(parse<unknown>(raw))));
  }

  get journal(): Map<string, JournalEntry> {
    return this.part('journal', () => decodeMap<JournalEntry>(this.storedPart('journal')));
  }

  get steering(): SteerInstruction[] | undefined {
    return this.part('steering', () => ((this.stored as StoredContext).steering ?? []).map(readInstruction));
  }
}

function decodeMap<T>(hash: Readonly<Record<string, string>>): Map<string, T> {
  const map = new Map<string, T>();
  for (const key in hash) map.set(key, parse<T>(hash[key]));
  return map;
}

/** Reads of what was recorded beside a task's record: its context, its logs, its triggers. */
@Injectable()
export class TaskContextStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  /** The whole context, action log and journal included, in one round trip (the Watcher's view). */
  async load(taskId: string): Promise<TaskContext> {
    const replies = await this.redis
      .pipeline()
      .lrange(this.keys.actions(taskId), 0, -1)
      .smembers(this.keys.doneSteps(taskId))
      .hgetall(this.keys.outputs(taskId))
      .lrange(this.keys.findings(taskId), 0, -1)
      .hgetall(this.keys.journal(taskId))
      .lrange(this.keys.steering(taskId), 0, -1)
      .exec();
    const value = (index: number): unknown => reply(replies, index);
    return contextOfStored({
      actions: value(0) as string[],
      doneSteps: value(1) as string[],
      outputs: value(2) as Record<string, string>,
      findings: value(3) as string[],
      journal: value(4) as Record<string, string>,
      steering: value(5) as string[],
    });
  }

  /**
   * The findings and only the parts asked for, in one round trip: what a task's exit checks read
   * (their `reads`), without an action log or outputs as long as the task that none of them reads.
   * Reading a part left out throws ContextPartNotLoadedError; the journal and the steering are
   * never read here.
   */
  async loadParts(taskId: string, parts: ReadonlySet<ContextPart>): Promise<TaskContext> {
    const pipeline = this.redis.pipeline().lrange(this.keys.findings(taskId), 0, -1);
    if (parts.has('actions')) pipeline.lrange(this.keys.actions(taskId), 0, -1);
    if (parts.has('doneSteps')) pipeline.smembers(this.keys.doneSteps(taskId));
    if (parts.has('outputs')) pipeline.hgetall(this.keys.outputs(taskId));
    const replies = await pipeline.exec();
    let index = 1;
    const next = <T>(part: ContextPart): T | undefined =>
      parts.has(part) ? (reply(replies, index++) as T) : undefined;
    return new StoredTaskContext({
      findings: reply(replies, 0) as string[],
      actions: next<string[]>('actions'),
      doneSteps: next<string[]>('doneSteps'),
      outputs: next<Record<string, string>>('outputs'),
    });
  }

  /**
   * The record and a slice's context in one round trip: what a slice needs to start. A `held`
   * context that is still current (load-slice.lua says when) is returned as it is instead of
   * being read again.
   */
  async loadForSlice<Plan>(taskId: string, held?: HeldContext<Plan>): Promise<LoadedSlice<Plan>> {
    const replies = await this.scripts.run<SliceReply>(
      'load-slice',
      [
        this.keys.task(taskId),
        this.keys.actions(taskId),
        this.keys.doneSteps(taskId),
        this.keys.outputs(taskId),
        this.keys.findings(taskId),
        this.keys.steering(taskId),
      ],
      [held?.attempt ?? 0, held?.actions ?? -1, held?.version ?? -1, held?.writer ?? '', RECENT_ACTIONS],
    );
    const task = replies[0] === '' ? null : decodeTask(parse<Record<string, string>>(replies[0]));
    if (replies[1] === ContextReply.Held) {
      const steering = (replies[2] ?? []).map(readInstruction);
      if (task && held) return { task, context: held.context, source: 'held', held, steering };
      return { task, context: emptySliceContext(), source: 'none', steering };
    }
    const [, , done, outputs, findings, recent, given] = replies;
    const context: SliceContext = {
      doneSteps: new Set(done),
      outputs: new Map(),
      findings: findings.map((raw) => readFinding(parse<unknown>(raw))),
      recentActions: (recent ?? []).map((raw) => parse<ActionRecord>(raw)),
    };
    for (let i = 0; i < outputs.length; i += 2)
      context.outputs.set(outputs[i], parse<unknown>(outputs[i + 1]));
    return { task, context, source: held ? 'stale' : 'none', steering: (given ?? []).map(readInstruction) };
  }

  /** The instructions given to the task from position `from` on (steer-task.lua): what a running slice has not read. */
  async steeringSince(taskId: string, from: number): Promise<SteerInstruction[]> {
    return (await this.redis.lrange(this.keys.steering(taskId), from, -1)).map(readInstruction);
  }

  /** Claims a one-time trigger of a task (a scripted misbehaviour); true only for the first claimer. */
  async claimTrigger(taskId: string, name: string): Promise<boolean> {
    return (await this.redis.hsetnx(this.keys.triggers(taskId), name, String(Date.now()))) === 1;
  }

  /**
   * The action log read backwards, newest first, `pageSize` entries a round trip, at most `limit`
   * entries: for a question the latest actions answer (docs/missions.md, "Stateful tool servers").
   */
  async *actionsNewestFirst(taskId: string, pageSize = 25, limit = 500): AsyncGenerator<ActionRecord> {
    const key = this.keys.actions(taskId);
    for (let read = 0; read < limit; read += pageSize) {
      const page = await this.redis.lrange(key, -(read + pageSize), -(read + 1));
      for (let i = page.length - 1; i >= 0; i--) yield parse<ActionRecord>(page[i]);
      if (page.length < pageSize) return;
    }
  }

  /** The action log, oldest first, cursor-paged (the cursor is a position). */
  actionsPage(taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    return this.page(this.keys.actions(taskId), limit, cursor);
  }

  /** The findings the agent recorded (`record_finding`, written by record-step.lua), oldest first, cursor-paged. */
  findingsPage(taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    return this.page(this.keys.findings(taskId), limit, cursor);
  }

  /** The user-message log, oldest first, cursor-paged. */
  messagesPage(taskId: string, limit: number, cursor?: string): Promise<LogPage> {
    return this.page(this.keys.messages(taskId), limit, cursor);
  }

  private page(key: string, limit: number, cursor?: string): Promise<LogPage> {
    return pageOfLog((start, stop) => this.redis.lrange(key, start, stop), limit, cursor);
  }
}
