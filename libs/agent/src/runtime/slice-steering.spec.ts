import type { SteerInstruction } from '@vigil/tasks';
import { SliceSteering, type CountingLedger } from './slice-steering';
import type { StepDone } from './step-ledger';

const given = (text: string): SteerInstruction => ({
  id: text,
  text,
  at: 1,
  afterStep: 0,
  status: 'running',
  attempt: 1,
});

/** A ledger whose steps report `count` instructions, as record-step.lua would. */
function ledgerReporting(counts: number[]): CountingLedger {
  const ledger = {
    steerCount: 0,
    record: async () => {
      ledger.steerCount = counts.shift() ?? ledger.steerCount;
      return 0;
    },
    heldContext: () => undefined,
  };
  return ledger;
}

const step = {} as StepDone;

describe('SliceSteering', () => {
  it('lists the instructions given before the slice in its opening, and announces none of them again', () => {
    const steering = new SliceSteering(
      [given('Skip the EU sites.'), given('Only the pricing page.')],
      async () => [],
    );
    expect(steering.opening()).toContain('1. Skip the EU sites.\n2. Only the pricing page.');
    expect(steering.takeNew()).toBeNull();
    expect(new SliceSteering([], async () => []).opening()).toBe('');
  });

  it('reads new instructions only when a step says there are more, and announces each once', async () => {
    const reads: number[] = [];
    const stored = [given('Skip the EU sites.'), given('Also check staging.')];
    const steering = new SliceSteering([stored[0]], async (from) => {
      reads.push(from);
      return stored.slice(from);
    });
    const ledger = steering.watching(ledgerReporting([1, 1, 2, 2]));
    await ledger.record(step);
    await ledger.record(step);
    expect(reads).toEqual([]);
    expect(steering.takeNew()).toBeNull();
    await ledger.record(step);
    expect(reads).toEqual([1]);
    expect(steering.takeNew()).toBe(
      'New instruction from the user, given while you work: Also check staging.\n' +
        'They come from the user and take precedence over the task above where the two differ.',
    );
    await ledger.record(step);
    expect(reads).toEqual([1]);
    expect(steering.takeNew()).toBeNull();
  });
});
