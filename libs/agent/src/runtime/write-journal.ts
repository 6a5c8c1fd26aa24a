import { Injectable } from '@nestjs/common';
import { RedisKeys } from '@vigil/redis';
import { scriptRefusal, type TaskStatus } from '@vigil/tasks';
import { StepRecorder } from './step-recorder';
import type { JournalEntry } from './task-context.store';

export type JournalState =
  { state: 'new' } | { state: 'done'; entry: JournalEntry } | { state: 'unknown'; entry: JournalEntry };

/**
 * The write journal (DESIGN.md invariant 4): an external write's intent is journalled before the
 * call, its result after it (by StepRecorder, with the step). A step found `done` is never written
 * again; one found `unknown` (intent without result) must be reconciled first.
 */
@Injectable()
export class WriteJournal {
  constructor(
    private readonly recorder: StepRecorder,
    private readonly keys: RedisKeys,
  ) {}

  async begin(
    taskId: string,
    attempt: number,
    key: string,
    args: Record<string, unknown>,
  ): Promise<JournalState> {
    const intent: JournalEntry = { state: 'intent', attempt, at: Date.now(), args };
    const [code, status, storedAttempt, raw] = await this.recorder.scripts.run<
      [number, TaskStatus, number, string]
    >(
      'journal-intent',
      [this.keys.task(taskId), this.keys.journal(taskId)],
      [attempt, key, JSON.stringify(intent)],
    );
    switch (code) {
      case 0:
        return { state: 'new' };
      case 1: {
        const entry = JSON.parse(raw) as JournalEntry;
        return entry.state === 'done' ? { state: 'done', entry } : { state: 'unknown', entry };
      }
      default:
        throw scriptRefusal(code, taskId, { status, storedAttempt, writerAttempt: attempt });
    }
  }
}
