import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode, scriptRefusal } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';
import type { TaskStatus } from '../task-status';
import type { TaskRecord } from '../task.types';
import type { JournalEntry } from './history.types';

export type JournalState =
  { state: 'new' } | { state: 'done'; entry: JournalEntry } | { state: 'unknown'; entry: JournalEntry };

/**
 * The write journal (docs/ARCHITECTURE.md, invariant 4): an external write's intent is journalled
 * before the call, its result after it (by StepRecorder, with the step). A step found `done` is
 * never written again; one found `unknown` (intent without result) must be reconciled first,
 * by the Worker before it writes or by the Watcher during a recovery.
 */
@Injectable()
export class WriteJournal {
  constructor(
    @Inject(REDIS) redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  async begin(
    taskId: string,
    attempt: number,
    key: string,
    args: Record<string, unknown>,
  ): Promise<JournalState> {
    const intent: JournalEntry = { state: 'intent', attempt, at: Date.now(), args };
    const [code, status, storedAttempt, raw] = await this.scripts.run<[number, TaskStatus, number, string]>(
      'journal-intent',
      [this.keys.task(taskId), this.keys.journal(taskId)],
      [attempt, key, JSON.stringify(intent)],
    );
    switch (code) {
      case ScriptCode.Applied:
        return { state: 'new' };
      case ScriptCode.Existing: {
        const entry = JSON.parse(raw) as JournalEntry;
        return entry.state === 'done' ? { state: 'done', entry } : { state: 'unknown', entry };
      }
      default:
        throw scriptRefusal(code, taskId, { status, storedAttempt, writerAttempt: attempt });
    }
  }

  /**
   * Records what a recovery found in the external system for a write whose outcome was unknown:
   * the step counts as done with its output. False when the task moved on (not this recovery's).
   */
  async recordReconciled(
    task: Pick<TaskRecord, 'id' | 'attempt'>,
    key: string,
    entry: JournalEntry,
    output: unknown,
  ): Promise<boolean> {
    const id = task.id;
    const [code] = await this.scripts.run<[number]>(
      'reconcile-journal',
      [this.keys.task(id), this.keys.journal(id), this.keys.doneSteps(id), this.keys.outputs(id)],
      [task.attempt, key, JSON.stringify(entry), JSON.stringify(output)],
    );
    return code === ScriptCode.Applied;
  }

  /**
   * Settles the write a task waits on (statusReason `unresolved_write`) as a person answered:
   * `done` records `result` as the write's result and the step as done, `not_done` removes the
   * intent so the write is made again. `settled` when this call settled it, `already` when an
   * earlier answer did; a task that is not waiting on an unresolved write is refused
   * (TaskNotActiveError with its status).
   */
  async resolveUnresolved(
    taskId: string,
    resolution: 'done' | 'not_done',
    result: unknown,
    now = Date.now(),
  ): Promise<'settled' | 'already'> {
    const [code, status] = await this.scripts.run<[number, TaskStatus, string]>(
      'resolve-unresolved-write',
      [
        this.keys.task(taskId),
        this.keys.journal(taskId),
        this.keys.doneSteps(taskId),
        this.keys.outputs(taskId),
      ],
      [resolution, JSON.stringify(result ?? null), now],
    );
    if (code === ScriptCode.Applied) return 'settled';
    if (code === ScriptCode.Existing) return 'already';
    throw scriptRefusal(code, taskId, { status, storedAttempt: 0 });
  }
}
