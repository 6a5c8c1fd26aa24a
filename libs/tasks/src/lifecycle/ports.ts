import type { ProviderName } from '@vigil/config';
import type { ChildTaskRepository } from '../children/child-task.repository';
import type { ControlSignals } from '../control-signals';
import type { DueSlice, TransitionStore } from './transition-command';

/** One slice job (libs/queue `SliceJob`): one slice of one task at one attempt. */
export interface SliceJob {
  taskId: string;
  attempt: number;
  /** The slice number this job runs (sliceCount + 1 at publish time). */
  slice: number;
  reason: 'created' | 'next_slice' | 'recovery' | 'resumed' | 'republished' | 'store_full';
}

/**
 * Where the lifecycle publishes the slices its moves make due: the slice queue (libs/queue
 * `SliceQueue`), bound in each app's module. libs/tasks knows the port only, not BullMQ.
 */
export interface SlicePublisher {
  publish(job: SliceJob): Promise<unknown>;
  /** Publishes a slice whose job may have finished under the same id (a due slice). */
  republish(job: SliceJob): Promise<unknown>;
  /** Makes a slice job parked for a running place due at once (docs/operations.md, "Tenant limits"). */
  wakeParked?(taskId: string, jobId: string): Promise<void>;
}

/** Wakes a Watcher at once when a Worker hands a task over (libs/queue `WakeQueue`). */
export interface WatcherWakeups {
  publish(job: { taskId: string; attempt: number; reason: 'verifying' | 'turn_failed' }): Promise<void>;
}

export const SLICE_PUBLISHER = Symbol('SLICE_PUBLISHER');
export const WATCHER_WAKEUPS = Symbol('WATCHER_WAKEUPS');

/**
 * Where a slice continued in place is written (StepRecorder: as an entry of the steps' group
 * commit, lua/includes/continue-slice.lua). Answers the task's slice count after the move.
 */
export interface SliceContinuations {
  continueSlice(
    taskId: string,
    move: { attempt: number; workerId: string; provider: ProviderName; codeVersion: string },
    now?: number,
  ): Promise<number>;
}

/** What every audience's moves use: the writer and the follow-ups. */
export interface LifecycleDeps {
  store: TransitionStore;
  /** A Worker's lifecycle has them (the step recorder); the others never continue a slice. */
  continuations?: SliceContinuations;
  signals: Pick<ControlSignals, 'publish'>;
  slices: SlicePublisher;
  wakeups: WatcherWakeups;
  children: Pick<ChildTaskRepository, 'list'>;
}

/**
 * Publishes the slices a transition made due (children given a place, a parent whose children all
 * ended). Their deadline entries are due already, so a failure here is repaired by the next sweep;
 * the job id is the slice's, so a second publish is the same job (republish: a finished job of
 * that id, a stray one a held child skipped, is replaced).
 */
export async function publishDue(slices: SlicePublisher, due: readonly DueSlice[]): Promise<void> {
  for (const slice of due)
    await slices.republish({ ...slice, reason: slice.slice === 1 ? 'created' : 'resumed' });
}
