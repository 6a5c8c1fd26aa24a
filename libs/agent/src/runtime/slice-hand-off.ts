import { Logger } from '@nestjs/common';
import type { SliceJob } from '@vigil/queue';
import type { FailureReason, TaskLifecycle, TaskRecord } from '@vigil/tasks';
import type { SliceEnd, SliceResult } from './slice-session';

/**
 * How a slice ended for its Worker: a slice end, or `skipped` (not this job's to run), `aborted`
 * (stopped, paused, recovered), `store_full` (Redis refused a write: the slice ended after its last
 * recorded step, with no failure counted; docs/operations.md, "A full Redis"), `parked` (all its
 * tenant's running places are taken: the job waits its turn; docs/operations.md, "Tenant limits").
 */
/**
 * `kind_version_elsewhere`: another live Worker runs the task's kind version, the job goes back to
 * the queue for it; `kind_version_waits`: none does, the task waits (docs/kinds.md, "Versions");
 * `parked`: the tenant's running places are all taken, the job waits delayed.
 */
export type SliceOutcome =
  | SliceEnd
  | 'skipped'
  | 'aborted'
  | 'store_full'
  | 'kind_version_elsewhere'
  | 'kind_version_waits'
  | 'parked';

const logger = new Logger('SliceRunner');

/**
 * How a slice's end becomes the task's next state, one named lifecycle move per end: next slice,
 * verification, a person's input, the children, money, or a failed attempt for the Watcher to judge.
 * `keepContext` runs before the next slice can start, so the held context is in place for it.
 */
export async function handOff(
  lifecycle: TaskLifecycle,
  task: TaskRecord,
  job: SliceJob,
  result: SliceResult,
  keepContext: () => void,
): Promise<SliceOutcome> {
  const { attempt, slice } = job;
  switch (result.end) {
    case 'next_slice':
      await lifecycle.handOffSlice(task, { attempt, slice, beforeNextSlice: keepContext });
      return 'next_slice';
    case 'verifying':
      await lifecycle.claimDone(task, { attempt, claim: result.claim ?? '' });
      return 'verifying';
    case 'waiting_on_human':
      await lifecycle.askPerson(task, {
        attempt,
        question: result.question ?? '',
        ...(result.unresolvedWrite ? { unresolvedWrite: result.unresolvedWrite } : {}),
      });
      return 'waiting_on_human';
    case 'waiting_on_children': {
      const parked = await lifecycle.awaitChildren(task, { attempt, slice, beforeNextSlice: keepContext });
      return parked.status === 'queued' ? 'next_slice' : 'waiting_on_children';
    }
    case 'failed_attempt':
      await failAttempt(lifecycle, task, attempt, result.reason ?? 'tool_error', result.detail, 'slice');
      return 'failed_attempt';
    case 'paused':
      await lifecycle.pauseForMoney(task, {
        attempt,
        reason: result.pauseReason ?? 'budget',
        ...(result.detail !== undefined ? { detail: result.detail } : {}),
      });
      return 'paused';
  }
}

/** Reports this attempt as failed; the Watcher decides whether and how to retry. */
export async function failAttempt(
  lifecycle: TaskLifecycle,
  task: TaskRecord,
  attempt: number,
  reason: FailureReason,
  detail: string | undefined,
  during: 'claim' | 'slice',
): Promise<void> {
  logger.warn(`task ${task.id} attempt ${attempt}: attempt failed (${reason}${detail ? `: ${detail}` : ''})`);
  await lifecycle.failAttempt(task, { attempt, reason, during, ...(detail !== undefined ? { detail } : {}) });
}
