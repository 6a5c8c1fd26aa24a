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
}
