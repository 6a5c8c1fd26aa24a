import type { TaskRecord } from '../task.types';
import { publishDue, type LifecycleDeps } from './ports';
import type { TransitionResult, TransitionTarget } from './transition-command';

/** A task whose slice is published again: the next slice is the one after the last it ran. */
type Continuable = TransitionTarget & Pick<TaskRecord, 'sliceCount'>;

/**
 * A task no live Worker can run waits for one that can (docs/kinds.md, "Versions"): parked
 * `paused` (`kind_version_unavailable`), so no clock runs, no Watcher recovers it and no retry is
 * spent, and entered in its shard's kind-version waits; a Worker that runs its version continues it.
 */
export class KindVersionMoves {
  constructor(private readonly deps: LifecycleDeps) {}

  /** queued → paused by the Worker whose slice job it is, fenced by the job's attempt; the job ends. */
  awaitKindVersion(
    task: TransitionTarget,
    move: { attempt: number; kind: string; version: number; now?: number },
  ): Promise<TransitionResult> {
    return this.deps.store.apply(task, {
      operation: 'await_kind_version',
      to: 'paused',
      attempt: move.attempt,
      from: ['queued'],
      statusReason: 'kind_version_unavailable',
      eventData: {
        by: 'worker',
        reason: 'kind_version_unavailable',
        detail: `no running Worker runs ${move.kind} version ${move.version}`,
      },
      now: move.now ?? Date.now(),
    });
  }

  /**
   * paused (kind_version_unavailable only) → queued, at the same attempt: nothing ran, so nothing
   * is fenced off. Its slice job of that attempt ended unrun, so it is published again.
   */
  async continueOnKindVersion(task: Continuable, move: { now?: number } = {}): Promise<TransitionResult> {
    const result = await this.deps.store.apply(task, {
      operation: 'continue_on_kind_version',
      to: 'queued',
      from: ['paused'],
      eventData: { by: 'worker' },
      now: move.now ?? Date.now(),
    });
    await publishDue(this.deps.slices, [
      { taskId: task.id, attempt: result.attempt, slice: task.sliceCount + 1 },
    ]);
    return result;
  }
}
