import { RecordingSlices, RecordingTransitionStore } from '@vigil/testing';
import { PlaceReleasingStore, type RunningPlaces } from './place-release';
import type { TransitionCommand } from './transition-command';

/** The running places given back, recorded; each release names one parked slice to wake. */
class RecordingPlaces implements RunningPlaces {
  readonly released: string[] = [];

  async release(tenantId: string, taskId: string): Promise<{ taskId: string; jobId: string }[]> {
    this.released.push(`${tenantId}/${taskId}`);
    return [{ taskId: 'parked', jobId: 'parked-a1-s1' }];
  }
}

class WakingSlices extends RecordingSlices {
  readonly woken: string[] = [];

  async wakeParked(taskId: string, jobId: string): Promise<void> {
    this.woken.push(`${taskId}:${jobId}`);
  }
}

const task = { id: 'tsk_1', tenantId: 'acme' };
const command = { operation: 'pause', to: 'paused', eventData: { by: 'user' }, now: 1 } as TransitionCommand;

describe('PlaceReleasingStore', () => {
  it.each([
    ['queued', 'paused', true],
    ['running', 'verifying', true],
    ['queued', 'retrying', true],
    ['running', 'cancelled', true],
    ['running', 'queued', false],
    ['queued', 'running', false],
    ['queued', 'queued', false],
    ['paused', 'cancelled', false],
    ['verifying', 'completed', false],
  ] as const)('from %s to %s gives the place back: %s', async (from, status, released) => {
    const inner = new RecordingTransitionStore().replyNext({ from, status });
    const places = new RecordingPlaces();
    const slices = new WakingSlices();
    await new PlaceReleasingStore(inner, places, slices, 1_000).apply(task, command);
    expect(places.released).toEqual(released ? ['acme/tsk_1'] : []);
    expect(slices.woken).toEqual(released ? ['parked:parked-a1-s1'] : []);
  });

  it('keeps the move when the release fails: the place is left to its lease', async () => {
    const inner = new RecordingTransitionStore().replyNext({ from: 'running', status: 'paused' });
    const failing: RunningPlaces = { release: () => Promise.reject(new Error('connection lost')) };
    await expect(
      new PlaceReleasingStore(inner, failing, new WakingSlices(), 1_000).apply(task, command),
    ).resolves.toMatchObject({ status: 'paused', from: 'running' });
  });
});
