import { IllegalTransitionError } from '../task-errors';
import { TASK_STATUSES, TERMINAL_STATUSES, type TaskStatus } from '../task-status';
import type { TaskRecord } from '../task.types';
import { publishDue, type LifecycleDeps } from './ports';
import type { TransitionResult, TransitionTarget } from './transition-command';

/** The states each of a person's moves acts on (docs/api.md, "Controls"). */
export const PERSON_MOVES_FROM = {
  stop: TASK_STATUSES.filter((status) => !TERMINAL_STATUSES.includes(status)),
  pause: ['queued', 'running', 'waiting_on_tool', 'waiting_on_human', 'retrying'],
  resume: ['paused'],
  input: ['waiting_on_human'],
} as const satisfies Record<string, readonly TaskStatus[]>;

/** A task to resume: its next slice is the one after the last it ran. */
type Resumable = TransitionTarget & Pick<TaskRecord, 'sliceCount'>;

/**
 * What people and conversations do to a task (docs/api.md, "Controls"). These act for
 * no attempt and are never fenced: a stop or pause wins over any slice in flight.
 */
export class PeopleMoves {
  constructor(private readonly deps: LifecycleDeps) {}

  /**
   * Cancels the task, aborts its Workers at once, then cascades to its children (and theirs):
   * the parent ends first, so no child's end releases another.
   */
  async stop(task: TransitionTarget, move: { now?: number } = {}): Promise<TransitionResult> {
    const result = await this.deps.store.apply(task, {
      operation: 'stop',
      to: 'cancelled',
      from: PERSON_MOVES_FROM.stop,
      eventData: { by: 'user' },
      now: move.now ?? Date.now(),
    });
    await this.ended(task.id, result);
    await this.stopChildren(task.id);
    return result;
  }

  /** Keeps everything; no recovery while paused. */
  async pause(task: TransitionTarget, move: { now?: number } = {}): Promise<TransitionResult> {
    const result = await this.deps.store.apply(task, {
      operation: 'pause',
      to: 'paused',
      from: PERSON_MOVES_FROM.pause,
      statusReason: 'user',
      eventData: { by: 'user' },
      now: move.now ?? Date.now(),
    });
    await this.deps.signals.publish({ taskId: task.id, action: 'pause' });
    return result;
  }

  /** A new mission in the conversation archives the active one: paused, kept, resumable. */
  async archive(task: TransitionTarget, move: { now?: number } = {}): Promise<TransitionResult> {
    const result = await this.deps.store.apply(task, {
      operation: 'archive',
      to: 'paused',
      from: PERSON_MOVES_FROM.pause,
      statusReason: 'archived',
      eventData: { by: 'conversation', reason: 'archived' },
      now: move.now ?? Date.now(),
    });
    await this.deps.signals.publish({ taskId: task.id, action: 'pause' });
    return result;
  }

  /**
   * Resuming starts a new attempt: a slice paused mid-call that wakes up later is then a zombie
   * whose writes are fenced off. A budget pause resumes with a higher `budgetUsd`.
   */
  async resume(task: Resumable, move: { budgetUsd?: number; now?: number } = {}): Promise<TransitionResult> {
    const result = await this.deps.store.apply(task, {
      operation: 'resume',
      to: 'queued',
      from: PERSON_MOVES_FROM.resume,
      increments: { attempt: 1 },
      fields: {
        consecutiveErrors: 0,
        ...(move.budgetUsd !== undefined ? { budgetUsd: move.budgetUsd } : {}),
      },
      eventData: { by: 'user' },
      now: move.now ?? Date.now(),
    });
    await this.publishResumed(task, result);
    return result;
  }

  /**
   * A person's answer to the task's question (with `resolution`: whether an unresolved write
   * happened, settled in the journal before this move): the task continues from the same step.
   */
  async answer(
    task: Resumable,
    move: { text: string; resolution?: 'done' | 'not_done'; now?: number },
  ): Promise<TransitionResult> {
    const now = move.now ?? Date.now();
    const { resolution } = move;
    const result = await this.deps.store.apply(task, {
      operation: 'answer',
      to: 'queued',
      from: PERSON_MOVES_FROM.input,
      fields: { humanInput: move.text, humanInputAt: now, ...(resolution ? { resolution } : {}) },
      eventData: { by: 'user', input: true, ...(resolution ? { resolution } : {}) },
      now,
    });
    await this.publishResumed(task, result);
    return result;
  }

  private async publishResumed(task: Resumable, result: TransitionResult): Promise<void> {
    await this.deps.slices.publish({
      taskId: task.id,
      attempt: result.attempt,
      slice: task.sliceCount + 1,
      reason: 'resumed',
    });
  }

  /** Aborts the task's Workers; its end may have given a sibling a place. */
  private async ended(taskId: string, result: TransitionResult): Promise<void> {
    await this.deps.signals.publish({ taskId, action: 'stop' });
    await publishDue(this.deps.slices, result.due);
  }

  /** Cancels every child not ended yet, and their children in turn; a child that ended meanwhile is left. */
  private async stopChildren(parentId: string): Promise<void> {
    for (const child of await this.deps.children.list(parentId)) {
      if (TERMINAL_STATUSES.includes(child.status)) continue;
      try {
        const result = await this.deps.store.apply(child, {
          operation: 'stop',
          to: 'cancelled',
          from: PERSON_MOVES_FROM.stop,
          eventData: { by: 'parent', parentId },
          now: Date.now(),
        });
        await publishDue(this.deps.slices, result.due);
      } catch (error) {
        if (!(error instanceof IllegalTransitionError)) throw error;
      }
      await this.deps.signals.publish({ taskId: child.id, action: 'stop' });
      await this.stopChildren(child.id);
    }
  }
}
