import { planCatchUp } from './catch-up';

const every2s = (after: number) => (Math.floor(after / 2_000) + 1) * 2_000;

describe('planCatchUp', () => {
  it('runs a fire taken up in time', () => {
    expect(planCatchUp(10_000, 10_040, 20_000, every2s)).toEqual({ run: 10_000, missed: [] });
  });

  it('runs the newest of the fires missed within catchUpMs once, and records the others as missed', () => {
    // A Watcher was down from 10 s to 20.5 s: the job of 10 s waited, 12–20 s were never produced.
    const plan = planCatchUp(10_000, 20_500, 20_000, every2s);
    expect(plan.run).toBe(20_000);
    expect(plan.missed.map((missed) => missed.fireTime)).toEqual([10_000, 12_000, 14_000, 16_000, 18_000]);
    expect(plan.missed[0].reason).toBe('caught up by the one run of 1970-01-01T00:00:20.000Z');
  });

  it('records fires older than catchUpMs as missed, and runs none when all are', () => {
    const plan = planCatchUp(10_000, 20_500, 5_000, every2s);
    expect(plan.run).toBe(20_000);
    expect(plan.missed.filter((missed) => missed.reason.startsWith('no Watcher'))).toHaveLength(3);
    const late = planCatchUp(10_000, 16_500, 5_000, (after) => (after < 10_000 ? 10_000 : undefined));
    expect(late).toEqual({
      missed: [{ fireTime: 10_000, reason: 'no Watcher took the fire up within catchUpMs (5000 ms)' }],
    });
  });

  it('lists at most 201 fire times after a long outage, the job’s own first, and counts the rest', () => {
    const plan = planCatchUp(0, 3_600_000, 1_000, every2s);
    expect(plan.run).toBe(3_600_000);
    expect(plan.missed).toHaveLength(200);
    expect(plan.missed[0].fireTime).toBe(0);
    expect(plan.missed[0].reason).toMatch(/1600 more fire times after it missed too, not listed$/);
  });
});
