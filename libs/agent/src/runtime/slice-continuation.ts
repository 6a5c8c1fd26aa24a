import type { SliceJob } from '@vigil/queue';
import { TERMINAL_STATUSES } from '@vigil/tasks';
import type { ClaimedSlice, SliceSetup } from './slice-setup';

/**
 * Whether a slice that used its steps runs the task's next slice at once in this Worker, under
 * the same BullMQ job, instead of handing it on through the queue (docs/ARCHITECTURE.md,
 * "Named transitions"). Only when that changes nothing another task or a deploy would see: the Worker is
 * not draining (a deploy hands every slice on), no slice job waits on the task's shard for a
 * Worker (a waiting task gets the place as it would after a hand-off), and the next slice is
 * within TASK_MAX_SLICES (`sliceCount`: the task's slices so far, this one included; the claim
 * that refuses one past the limit stays the one place that does).
 */
export async function continuesHere(setup: SliceSetup, taskId: string, sliceCount: number): Promise<boolean> {
  const queue = setup.services.sliceQueue;
  if (!queue || setup.active.draining) return false;
  if (sliceCount >= setup.services.config.taskMaxSlices) return false;
  return !(await queue.hasBacklog(taskId));
}

/**
 * The next slice after `continueSlice`: the record as the move left it and the context this
 * Worker held at the end of the last one (read again if something changed it meanwhile), as a
 * claim would load them. `skipped` when the task is no longer running this slice for this
 * attempt (`sliceCount`: the count the move left; a stop, pause, resume or recovery came between):
 * the held context stays for a later slice.
 */
export async function reloadContinued(
  setup: SliceSetup,
  job: SliceJob,
  sliceCount: number,
): Promise<ClaimedSlice | 'skipped'> {
  const { heldContexts, contexts } = setup;
  const held = heldContexts.take(job.taskId);
  const loaded = await contexts.loadForSlice(job.taskId, held);
  const { task } = loaded;
  if (!task || task.attempt !== job.attempt || task.status !== 'running' || task.sliceCount !== sliceCount) {
    if (held && loaded.source === 'held' && task && !TERMINAL_STATUSES.includes(task.status))
      heldContexts.put(job.taskId, held);
    return 'skipped';
  }
  heldContexts.starts[loaded.source]++;
  return { ...loaded, task };
}
