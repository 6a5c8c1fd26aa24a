import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';
import { TASK_SETTINGS, type TaskSettings } from '../task-settings';
import { decodeTask } from '../task-codec';
import { TaskNotFoundError } from '../task-errors';
import type { TaskRecord } from '../task.types';
import { ChildKeys } from './child-keys';

/** Where a registered child stands: holding a place, waiting for one, or ended. */
export type ChildPlacement = 'running' | 'queued' | 'ended';

export type ChildRegistration =
  | { registered: true; placement: ChildPlacement; created: boolean }
  | { registered: false; reason: 'parent_ended' };

/** The largest shard count for which a child id is searched for (SHARDS tries on average). */
const MAX_ID_TRIES = 100_000;

/**
 * A parent's children (docs/missions.md, "Child missions"): their ids, on the parent's shard,
 * their registration (register-child.lua) and the list read back. Ending a child is part of its
 * terminal transition (transition-task.lua), where its place is freed.
 */
@Injectable()
export class ChildTaskRepository {
  private readonly children: ChildKeys;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(TASK_SETTINGS)
    private readonly config: Pick<TaskSettings, 'maxParallelChildren' | 'staleAfterMs'>,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {
    this.children = new ChildKeys(keys);
  }

  /**
   * The id of the parent's child for one logical step: derived, so a replayed `start_subtask`
   * (a retried attempt) lands on the same child, and searched until it hashes to the parent's shard,
   * so registration and a child's end are single-slot scripts (SHARDS tries on average).
   */
  childId(parentId: string, stepKey: string): string {
    const shard = this.keys.shardOf(parentId);
    for (let n = 0; n < MAX_ID_TRIES; n++) {
      const digest = createHash('sha256').update(`${parentId}\n${stepKey}\n${n}`).digest('hex');
      const id = `tsk_${digest.slice(0, 24)}`;
      if (this.keys.shardOf(id) === shard) return id;
    }
    throw new Error(`no child id on shard ${shard} after ${MAX_ID_TRIES} tries`);
  }

  /** Registers a created child with its parent; its first slice may be published when `running`. */
  async register(parentId: string, childId: string, now = Date.now()): Promise<ChildRegistration> {
    const [code, placement] = await this.scripts.run<[number, string]>(
      'register-child',
      [
        this.keys.task(parentId),
        this.children.all(parentId),
        this.children.running(parentId),
        this.children.held(parentId),
        this.keys.task(childId),
        this.keys.deadlineIndex(this.keys.shardOf(parentId)),
      ],
      [childId, this.config.maxParallelChildren, now + this.config.staleAfterMs],
    );
    if (code === ScriptCode.NotActive) return { registered: false, reason: 'parent_ended' };
    if (code === ScriptCode.NotFound) throw new TaskNotFoundError(parentId);
    if (code === ScriptCode.StatusMismatch) throw new Error(`task ${childId} is not a child of ${parentId}`);
    return {
      registered: true,
      placement: placement as ChildPlacement,
      created: code === ScriptCode.Applied,
    };
  }

  /** The parent's children ids, oldest first. */
  ids(parentId: string): Promise<string[]> {
    return this.redis.lrange(this.children.all(parentId), 0, -1);
  }

  /** The parent's children, oldest first (one pipeline: they share the parent's slot). */
  async list(parentId: string): Promise<TaskRecord[]> {
    const records = await this.records(await this.ids(parentId));
    return records.filter((task): task is TaskRecord => task !== null);
  }

  /** The records of children of one parent, in the order given; null for one Redis no longer holds. */
  async records(ids: readonly string[]): Promise<(TaskRecord | null)[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.task(id));
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, hash]) => {
      if (error) throw error;
      return decodeTask(hash as Record<string, string>);
    });
  }

  /** True while a child waits for a place: its first slice must not be published. */
  async isHeld(child: Pick<TaskRecord, 'id' | 'parentId'>): Promise<boolean> {
    if (!child.parentId) return false;
    return (await this.redis.lpos(this.children.held(child.parentId), child.id)) !== null;
  }

  /** True when a child was created but never registered (its creator died in between). */
  async isUnregistered(child: Pick<TaskRecord, 'id' | 'parentId'>): Promise<boolean> {
    if (!child.parentId) return false;
    return (await this.redis.hget(this.keys.task(child.id), 'childRegistered')) !== '1';
  }
}
