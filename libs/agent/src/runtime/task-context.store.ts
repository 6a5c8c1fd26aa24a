import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { ActionRecord } from '@vigil/kinds';
import { REDIS, RedisKeys, ScriptRunner } from '@vigil/redis';
import { decodeTask, type TaskRecord } from '@vigil/tasks';
import { loadAgentScripts } from './agent-scripts';
import type { HeldContext, SliceContext } from './slice-context';

export interface JournalEntry {
  state: 'intent' | 'done';
  attempt: number;
  at: number;
  args?: Record<string, unknown>;
  result?: unknown;
  reconciled?: boolean;
}

/** All that is known about a task's past, all of it recorded by the runtime: the Watcher's view. */
export interface TaskContext extends SliceContext {
  actions: ActionRecord[];
  journal: Map<string, JournalEntry>;
}

const parse = <T>(raw: string): T => JSON.parse(raw) as T;

type PipelineReplies = [Error | null, unknown][] | null;

function reply(replies: PipelineReplies, index: number): unknown {
  const [error, result] = replies?.[index] ?? [new Error('no reply'), null];
  if (error) throw error;
  return result;
}

type SliceReply = [string[], 0] | [string[], 1, string[], string[], string[]];

/** A slice's start: the record, and its context: held and current, held but out of date (read), none held (read). */
export interface LoadedSlice {
  task: TaskRecord | null;
  context: SliceContext;
  source: 'held' | 'stale' | 'none';
}

function fromPairs(flat: string[]): Record<string, string> {
  const hash: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) hash[flat[i]] = flat[i + 1];
  return hash;
}

@Injectable()
export class TaskContextStore {
  private readonly scripts: ScriptRunner;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    this.scripts = loadAgentScripts(redis);
  }

  /** The whole context, action log and journal included, in one round trip (the Watcher's view). */
  async load(taskId: string): Promise<TaskContext> {
    const replies = await this.redis
      .pipeline()
      .lrange(this.keys.actions(taskId), 0, -1)
      .smembers(this.keys.doneSteps(taskId))
      .hgetall(this.keys.outputs(taskId))
      .lrange(this.keys.findings(taskId), 0, -1)
      .hgetall(this.keys.journal(taskId))
      .exec();
    const value = (index: number): unknown => reply(replies, index);
    return {
      actions: (value(0) as string[]).map((raw) => parse<ActionRecord>(raw)),
      doneSteps: new Set(value(1) as string[]),
      outputs: new Map(
        Object.entries(value(2) as Record<string, string>).map(([k, v]) => [k, parse<unknown>(v)]),
      ),
      findings: (value(3) as string[]).map((raw) => parse<unknown>(raw)),
      journal: new Map(
        Object.entries(value(4) as Record<string, string>).map(([k, v]) => [k, parse<JournalEntry>(v)]),
      ),
    };
  }

  /**
   * The record and a slice's context in one round trip: what a slice needs to start. A `held`
   * context that is still current (load-slice.lua says when) is returned as it is instead of
   * being read again.
   */
  async loadForSlice(taskId: string, held?: HeldContext): Promise<LoadedSlice> {
    const replies = await this.scripts.run<SliceReply>(
      'load-slice',
      [
        this.keys.task(taskId),
        this.keys.actions(taskId),
        this.keys.doneSteps(taskId),
        this.keys.outputs(taskId),
        this.keys.findings(taskId),
      ],
      [held?.attempt ?? 0, held?.actions ?? -1, held?.version ?? -1, held?.writer ?? ''],
    );
    const task = decodeTask(fromPairs(replies[0]));
    if (replies[1] === 0) {
      if (task && held) return { task, context: held.context, source: 'held' };
      return { task, context: { doneSteps: new Set(), outputs: new Map(), findings: [] }, source: 'none' };
    }
    const [, , done, outputs, findings] = replies;
    const context: SliceContext = {
      doneSteps: new Set(done),
      outputs: new Map(),
      findings: findings.map((raw) => parse<unknown>(raw)),
    };
    for (let i = 0; i < outputs.length; i += 2)
      context.outputs.set(outputs[i], parse<unknown>(outputs[i + 1]));
    return { task, context, source: held ? 'stale' : 'none' };
  }

  /** Claims a scripted misbehaviour for a task; true only for the first claimer. */
  async claimTrigger(taskId: string, name: string): Promise<boolean> {
    return (await this.redis.hsetnx(this.keys.triggers(taskId), name, String(Date.now()))) === 1;
  }
}
