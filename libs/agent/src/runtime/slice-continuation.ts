import type { SliceJob } from '@vigil/queue';
import type { PlanStep } from '@vigil/kinds';
import type { SteerInstruction, TaskRecord } from '@vigil/tasks';
import type { HeldSliceContext } from './slice-context';
import type { ClaimedSlice, SliceSetup } from './slice-setup';

/**
 * Whether a slice that used its steps runs the task's next slice at once in this Worker, under
 * the same BullMQ job, instead of handing it on through the queue (docs/ARCHITECTURE.md,
 * "Named transitions"). Only when that changes nothing another task or a deploy would see: the Worker is
 * not draining (a deploy hands every slice on), the next slice is within TASK_MAX_SLICES
 * (`sliceCount`: the task's slices so far, this one included; the claim that refuses one past the
 * limit stays the one place that does), and no task waits for the place: either this Worker's
 * processor of the shard has a free one (`jobsHere`, its slice jobs running now, is below
 * WORKER_CONCURRENCY: a job waiting is one it takes at once), or no slice job waits on the shard.
 * Asking the queue only when the processor is full also keeps a burst of hand-offs from feeding
 * itself: each hand-off's job waits a moment before it is taken, and would make the next slice's
 * check hand on too.
 */
export async function continuesHere(
  setup: SliceSetup,
  taskId: string,
  sliceCount: number,
  jobsHere: number,
): Promise<boolean> {
  const queue = setup.services.sliceQueue;
  if (!queue || setup.active.draining) return false;
  const { taskMaxSlices, workerConcurrency } = setup.services.config;
  if (sliceCount >= taskMaxSlices) return false;
  if (jobsHere < workerConcurrency) return true;
  return !(await queue.hasBacklog(taskId));
}

/**
 * The slice jobs a Worker runs now, by shard: each shard's processor runs WORKER_CONCURRENCY at
 * most. Counted by the task a job is for, on its shard.
 */
export class JobsInFlight {
  private readonly byShard = new Map<number, number>();

  constructor(private readonly shardOf: (taskId: string) => number) {}

  enter(taskId: string): void {
    const shard = this.shardOf(taskId);
    this.byShard.set(shard, (this.byShard.get(shard) ?? 0) + 1);
  }

  leave(taskId: string): void {
    const shard = this.shardOf(taskId);
    this.byShard.set(shard, (this.byShard.get(shard) ?? 0) - 1);
  }

  /** The jobs running now on the task's shard, its own included. */
  count(taskId: string): number {
    return this.byShard.get(this.shardOf(taskId)) ?? 0;
  }
}

/**
 * A slice that ended by `continueSlice`: the context it leaves (none when a step showed a change
 * it did not make) and every instruction it knew of.
 */
export interface Continued {
  held?: HeldSliceContext;
  steering: readonly SteerInstruction[];
  /** Who runs the next slice, as the continue move wrote it. */
  started: Pick<TaskRecord, 'workerId' | 'provider' | 'codeVersion'>;
}

/**
 * The next slice after `continueSlice`, with nothing read again: the move was fenced on the
 * attempt and on `running` (a stop, pause or recovery in between refused it), and the context is
 * the one this Worker's last step left. A write by anyone else since, or a new instruction, shows
 * in the answer to the next step (its context version, its steering count), as it does within a
 * slice. The record is the one the slice ran with, as the move and its steps left it (the slice
 * count, and who runs it: `started`, this Worker): nothing else a slice reads of it (title,
 * input, criteria, budget, model, policy) changes while the task runs.
 */
export function nextContinued(
  setup: SliceSetup,
  previous: ClaimedSlice,
  { held, steering, started }: Continued & { held: HeldSliceContext },
  sliceCount: number,
): ClaimedSlice {
  setup.heldContexts.starts.held++;
  return {
    task: { ...previous.task, ...started, sliceCount, contextVersion: held.version },
    context: held.context,
    source: 'held',
    held,
    steering: [...steering],
  };
}

/**
 * The next slice after `continueSlice` when the last slice kept no context (a step showed a change
 * it did not make): the record as the move left it and the context read again, as a claim would
 * load them. `skipped` when the task is no longer running this slice for this attempt
 * (`sliceCount`: the count the move left; a stop, pause, resume or recovery came between).
 */
export async function reloadContinued(
  setup: SliceSetup,
  job: SliceJob,
  sliceCount: number,
): Promise<ClaimedSlice | 'skipped'> {
  const loaded = await setup.contexts.loadForSlice<PlanStep[]>(job.taskId);
  const { task } = loaded;
  if (!task || task.attempt !== job.attempt || task.status !== 'running' || task.sliceCount !== sliceCount)
    return 'skipped';
  setup.heldContexts.starts[loaded.source]++;
  return { ...loaded, task };
}
