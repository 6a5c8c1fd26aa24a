import type { TurnQueue } from '@vigil/queue';
import type { DueSlice } from '@vigil/tasks';

/**
 * Publishes the slices a transition made due (children given a place, a parent whose children all
 * ended). Their deadline entries are due already, so a failure here is repaired by the next sweep;
 * the job id is the slice's, so a second publish is the same job (republish: a finished job of
 * that id, a stray one a held child skipped, is replaced).
 */
export async function publishDue(
  turns: Pick<TurnQueue, 'republish'>,
  due: readonly DueSlice[],
): Promise<void> {
  for (const slice of due)
    await turns.republish({ ...slice, reason: slice.slice === 1 ? 'created' : 'resumed' });
}
