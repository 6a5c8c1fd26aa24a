import { archiveCutoff } from './retention-pace';

describe('archiveCutoff', () => {
  const now = 1_000_000;

  it('takes every task due by now on a shard with no active task', () => {
    expect(archiveCutoff(now, 0, 60_000)).toBe(now);
  });

  it('takes only the tasks overdue by the busy lag while tasks are active', () => {
    expect(archiveCutoff(now, 1, 60_000)).toBe(now - 60_000);
    expect(archiveCutoff(now, 500, 60_000)).toBe(now - 60_000);
  });

  it('with a busy lag of 0 takes every task due by now, active tasks or not', () => {
    expect(archiveCutoff(now, 500, 0)).toBe(now);
  });
});
