import { Logger } from '@nestjs/common';
import type { SliceJob } from '@vigil/queue';
import { IllegalTransitionError, StoreFullError, type TaskLifecycle, type TaskRecord } from '@vigil/tasks';
import { DrainDeadlineError } from './active-slices';
import { HungCallError } from './call-watchdog';
import { failAttempt, handOff, type SliceOutcome } from './slice-hand-off';
import { isFencingError } from './tool-executor';

const logger = new Logger('SliceRunner');

/**
 * A slice that ended by an abort or a refused write: a hung call ends the attempt (`hung_call`), a
 * drain past its deadline hands the task on, a stop, pause or recovery means it is not ours.
 */
export async function interrupted(
  lifecycle: TaskLifecycle,
  task: TaskRecord,
  job: SliceJob,
  signal: AbortSignal,
  error: unknown,
): Promise<SliceOutcome> {
  const reason: unknown = signal.aborted ? signal.reason : error;
  if (reason instanceof StoreFullError || error instanceof StoreFullError)
    return storeFull(job, 'after its last recorded step');
  if (!signal.aborted && !isFencingError(error)) throw error;
  try {
    if (reason instanceof HungCallError) {
      await failAttempt(lifecycle, task, job.attempt, 'hung_call', reason.message, 'slice');
      return 'failed_attempt';
    }
    if (reason instanceof DrainDeadlineError) {
      return await handOff(lifecycle, task, job, { end: 'next_slice' }, () => undefined);
    }
  } catch (refused) {
    if (refused instanceof StoreFullError) return storeFull(job, 'at its hand-off');
    if (!isFencingError(refused) && !(refused instanceof IllegalTransitionError)) throw refused;
  }
  logger.log(`task ${task.id} attempt ${job.attempt}: slice abandoned (${String(reason)})`);
  return 'aborted';
}

/**
 * Redis is full and refused a write (docs/operations.md, "A full Redis"): the slice ends where it
 * is, with no further tool call (a write that cannot be journalled is never made) and no failed
 * attempt (that write would be refused too). The task keeps its last recorded step; its heartbeat
 * goes stale and the Watcher continues it, with no retry counted, once writes succeed again.
 * Logged once per slice.
 */
export function storeFull(job: SliceJob, where: string): SliceOutcome {
  logger.warn(
    `task ${job.taskId} attempt ${job.attempt} slice ${job.slice}: store_full: Redis is full and refused a write; ` +
      `the slice ends ${where}, no further tool call, no failure counted`,
  );
  return 'store_full';
}
