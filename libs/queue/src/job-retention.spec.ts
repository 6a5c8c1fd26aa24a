import { SLICE_JOB_RETENTION, withCompletedAge } from './job-retention';

describe('withCompletedAge', () => {
  it('keeps completed jobs the given time (in whole seconds) and failed ones at least as long', () => {
    expect(withCompletedAge(SLICE_JOB_RETENTION, 2_500)).toEqual({
      completed: { age: 3, count: 10_000 },
      failed: { age: 24 * 3_600, count: 10_000 },
    });
    expect(withCompletedAge(SLICE_JOB_RETENTION, 3 * 86_400_000).failed).toEqual({
      age: 3 * 86_400,
      count: 10_000,
    });
  });
});
