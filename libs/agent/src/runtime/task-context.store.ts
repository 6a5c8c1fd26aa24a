import { Inject, Injectable } from '@nestjs/common';
import type { ChainableCommander, Redis } from 'ioredis';
import type { ActionRecord } from '@vigil/kinds';
import { REDIS, RedisKeys } from '@vigil/redis';
import { decodeTask, type TaskRecord } from '@vigil/tasks';

export interface JournalEntry {
  state: 'intent' | 'done';
  attempt: number;
  at: number;
  args?: Record<string, unknown>;
  result?: unknown;
  reconciled?: boolean;
}

/** What a slice (or the Watcher) knows about a task's past: all of it recorded by the runtime. */
export interface TaskContext {
  actions: ActionRecord[];
  doneSteps: Set<string>;
  outputs: Map<string, unknown>;
  findings: unknown[];
  journal: Map<string, JournalEntry>;
}

const parse = <T>(raw: string): T => JSON.parse(raw) as T;

type PipelineReplies = [Error | null, unknown][] | null;

function reply(replies: PipelineReplies, index: number): unknown {
  const [error, result] = replies?.[index] ?? [new Error('no reply'), null];
  if (error) throw error;
  return result;
}

@Injectable()
export class TaskContextStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /**
   * One round trip for the whole context. A slice skips the action log (`withActions: false`): its
   * prompt needs only done steps, outputs and findings, and re-reading a long log every slice
   * would make a task's bookkeeping grow with the square of its length.
   */
  async load(taskId: string, options: { withActions?: boolean } = {}): Promise<TaskContext> {
    const replies = await this.queueContext(
      this.redis.pipeline(),
      taskId,
      options.withActions ?? true,
    ).exec();
    return this.decodeContext(replies, 0);
  }

  /** The record and a slice's context in the same round trip: what a slice needs to start. */
  async loadForSlice(taskId: string): Promise<{ task: TaskRecord | null; context: TaskContext }> {
    const pipeline = this.redis.pipeline().hgetall(this.keys.task(taskId));
    const replies = await this.queueContext(pipeline, taskId, false).exec();
    return {
      task: decodeTask(reply(replies, 0) as Record<string, string>),
      context: this.decodeContext(replies, 1),
    };
  }

  private queueContext(
    pipeline: ChainableCommander,
    taskId: string,
    withActions: boolean,
  ): ChainableCommander {
    return pipeline
      .lrange(this.keys.actions(taskId), withActions ? 0 : 1, withActions ? -1 : 0)
      .smembers(this.keys.doneSteps(taskId))
      .hgetall(this.keys.outputs(taskId))
      .lrange(this.keys.findings(taskId), 0, -1)
      .hgetall(this.keys.journal(taskId));
  }

  private decodeContext(replies: PipelineReplies, offset: number): TaskContext {
    const value = (index: number): unknown => reply(replies, offset + index);
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

  /** Claims a scripted misbehaviour for a task; true only for the first claimer. */
  async claimTrigger(taskId: string, name: string): Promise<boolean> {
    return (await this.redis.hsetnx(this.keys.triggers(taskId), name, String(Date.now()))) === 1;
  }
}
