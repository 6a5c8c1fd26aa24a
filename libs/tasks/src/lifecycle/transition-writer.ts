import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { BoundedMemo, REDIS, RedisKeys } from '@vigil/redis';
import { RetentionPolicy } from '../archive/retention-policy';
import { ChildKeys } from '../children/child-keys';
import { ScriptCode, scriptRefusal } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';
import { TASK_SETTINGS, type TaskSettings } from '../task-settings';
import { JSON_FIELDS } from '../task-codec';
import { TASK_STATUSES, TERMINAL_STATUSES, TaskStatus } from '../task-status';
import type {
  DueSlice,
  ForgetResult,
  ForgetTarget,
  TransitionCommand,
  TransitionFields,
  TransitionResult,
  TransitionStore,
  TransitionTarget,
} from './transition-command';

type TransitionReply = [number, string, number, string, string?];

function stringifyFields(fields: TransitionFields | undefined): string {
  if (!fields) return '';
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields) as [string, unknown][]) {
    // Structured fields are always JSON, even when the value is a bare string.
    out[name] =
      value === null || value === undefined
        ? ''
        : typeof value === 'object' || JSON_FIELDS.has(name)
          ? JSON.stringify(value)
          : String(value as string | number);
  }
  return JSON.stringify(out);
}

/** Tenant-and-shard key lists kept (transitionKeys): far more than a deployment's tenants × shards. */
const SHARD_KEY_CACHE_SIZE = 10_000;

/**
 * Runs transition-task.lua, the one writer of a task's status. Only TaskLifecycle calls it
 * (docs/ARCHITECTURE.md, "The task lifecycle"): it is not exported from @vigil/tasks.
 */
@Injectable()
export class TransitionWriter implements TransitionStore {
  private readonly shardKeys = new BoundedMemo<readonly string[]>(SHARD_KEY_CACHE_SIZE);

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(TASK_SETTINGS)
    private readonly config: Pick<
      TaskSettings,
      | 'staleAfterMs'
      | 'eventStreamMaxLen'
      | 'taskMaxDurationMs'
      | 'humanWaitTimeoutMs'
      | 'maxParallelChildren'
    >,
    private readonly retention: RetentionPolicy,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  /** Applies one operation; throws a typed error when the script refuses it. */
  async apply(task: TransitionTarget, command: TransitionCommand): Promise<TransitionResult> {
    const { to } = command;
    // parentId is set at creation and never changes: reading it here decides nothing about state.
    const parentId =
      task.parentId !== undefined
        ? task.parentId
        : TERMINAL_STATUSES.includes(to)
          ? ((await this.redis.hget(this.keys.task(task.id), 'parentId')) ?? '') || null
          : null;
    const [code, status, attempt, due, from] = await this.scripts.run<TransitionReply>(
      'transition-task',
      this.transitionKeys(task, parentId),
      this.transitionArgs(task, command),
    );
    if (code !== ScriptCode.Applied)
      throw scriptRefusal(code, task.id, {
        status: status as TaskStatus,
        storedAttempt: attempt,
        writerAttempt: command.attempt,
        to,
      });
    const slices = JSON.parse(due || '[]') as unknown;
    return {
      status: status as TaskStatus,
      attempt,
      due: Array.isArray(slices) ? (slices as DueSlice[]) : [],
      ...(from ? { from: from as TaskStatus } : {}),
    };
  }

  async forget(task: ForgetTarget): Promise<ForgetResult> {
    const shard = this.keys.shardOf(task.id);
    const children = new ChildKeys(this.keys);
    const k = this.keys;
    const [code] = await this.scripts.run<[number, string]>(
      'forget-task',
      [
        k.task(task.id),
        k.actions(task.id),
        k.journal(task.id),
        k.findings(task.id),
        k.outputs(task.id),
        k.doneSteps(task.id),
        k.triggers(task.id),
        k.messages(task.id),
        k.messageIndex(task.id),
        children.all(task.id),
        children.running(task.id),
        children.held(task.id),
        k.tenantIndex(shard, task.tenantId),
        ...TERMINAL_STATUSES.map((status) => k.tenantStatusIndex(shard, task.tenantId, status)),
        k.retentionIndex(shard),
        k.deadlineIndex(shard),
        k.callDeadlineIndex(shard),
        k.verifyingIndex(shard),
        k.expiryIndex(shard),
        k.updatesIndex(shard),
        k.task(task.parentId ?? task.id),
        k.artifacts(task.id),
        k.liveOutput(task.id),
        k.steering(task.id),
      ],
      [task.id, task.finishedAt],
    );
    if (code === ScriptCode.Applied) return 'removed';
    if (code === ScriptCode.NotFound) return 'gone';
    if (code === ScriptCode.NotActive) return 'parent_live';
    return 'changed';
  }

  private transitionKeys(task: Pick<TransitionTarget, 'id' | 'tenantId'>, parentId: string | null): string[] {
    const shard = this.keys.shardOf(task.id);
    const children = new ChildKeys(this.keys);
    // Without a parent the child keys are the task's own: unused, and in its slot.
    const parent = parentId ?? task.id;
    const keys = [this.keys.task(task.id)];
    for (const key of this.shardTransitionKeys(shard, task.tenantId)) keys.push(key);
    keys.push(
      this.keys.task(parent),
      children.running(parent),
      children.held(parent),
      this.keys.retentionIndex(shard),
      this.keys.kindVersionWaits(shard),
    );
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
    task: Pick<TransitionTarget, 'id' | 'tenantId'>,
    command: TransitionCommand,
  ): (string | number)[] {
    const { now } = command;
    return [
      task.id,
      command.to,
      command.attempt === undefined ? '' : command.attempt,
      command.from ? command.from.join(',') : '',
      now,
      command.deadlineMs ?? now + this.config.staleAfterMs,
      stringifyFields(command.fields),
      command.failedAttempt ? JSON.stringify({ ...command.failedAttempt, result: 'failed' }) : '',
      command.operation,
      JSON.stringify(command.eventData),
      this.config.eventStreamMaxLen,
      command.increments ? JSON.stringify(command.increments) : '',
      this.config.taskMaxDurationMs,
      this.config.humanWaitTimeoutMs,
      this.config.maxParallelChildren,
      command.statusReason ?? '',
      TERMINAL_STATUSES.includes(command.to) ? this.retention.retentionMs(task.tenantId, command.to) : 0,
    ];
  }
}
