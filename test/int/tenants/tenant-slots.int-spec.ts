import { RedisTestContext } from '@vigil/testing';
import { TenantSlots } from '@vigil/tasks';

const LEASE = { leaseMs: 10_000, staleMs: 5_000 };
const slice = (taskId: string) => ({ taskId, jobId: `${taskId}-a1-s1` });
const max = (maxRunning: number) => ({ maxRunning, weight: 1, fairShare: false });

describe('tenant running places under maxRunning (claim-tenant-slot.lua, release-tenant-slot.lua)', () => {
  const ctx = new RedisTestContext('tenant-slots');
  const slots = new TenantSlots(ctx.redis, ctx.keys);
  afterAll(() => ctx.close());

  it('grants at most maxRunning places to any number of Workers claiming at once', async () => {
    const connections = Array.from({ length: 8 }, () => ctx.redis.duplicate());
    try {
      const claims = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          new TenantSlots(connections[i % 8], ctx.keys).claim('racing', slice(`t${i}`), max(3), LEASE, 1_000),
        ),
      );
      expect(claims.filter((c) => c.granted)).toHaveLength(3);
      expect(claims.filter((c) => !c.granted && c.firstWait)).toHaveLength(37);
      expect(await slots.running('racing', 1_000)).toHaveLength(3);
      expect(await slots.waiting('racing')).toBe(37);
    } finally {
      await Promise.all(connections.map((c) => c.quit()));
    }
  });

  it('keeps a holder’s place on its next claim, and gives a freed place to the first task that asked', async () => {
    expect(await slots.claim('fifo', slice('a'), max(1), LEASE, 1_000)).toEqual({
      granted: true,
      running: 1,
    });
    expect(await slots.claim('fifo', slice('b'), max(1), LEASE, 1_100)).toMatchObject({
      granted: false,
      firstWait: true,
    });
    expect(await slots.claim('fifo', slice('c'), max(1), LEASE, 1_200)).toMatchObject({
      granted: false,
      firstWait: true,
    });
    // The holder's next slice keeps its place; a second refusal is not a first wait.
    expect(await slots.claim('fifo', slice('a'), max(1), LEASE, 1_300)).toMatchObject({ granted: true });
    expect(await slots.claim('fifo', slice('c'), max(1), LEASE, 1_400)).toMatchObject({
      granted: false,
      firstWait: false,
    });
    // Released: the place goes to b (first asked), named so its parked job can be woken.
    expect(await slots.release('fifo', 'a', LEASE.staleMs, 1_500)).toEqual([slice('b')]);
    // c asks before b comes back: it is refused, the place is b's turn.
    expect(await slots.claim('fifo', slice('c'), max(1), LEASE, 1_600)).toMatchObject({ granted: false });
    expect(await slots.claim('fifo', slice('b'), max(1), LEASE, 1_700)).toMatchObject({ granted: true });
    expect(await slots.running('fifo', 1_700)).toEqual(['b']);
  });

  it('frees the place of a Worker that died when its lease runs out', async () => {
    expect(await slots.claim('dead', slice('x'), max(1), LEASE, 1_000)).toMatchObject({ granted: true });
    expect(await slots.claim('dead', slice('y'), max(1), LEASE, 2_000)).toMatchObject({ granted: false });
    // x's Worker never renews nor releases: past its lease, y gets the place.
    expect(await slots.claim('dead', slice('y'), max(1), LEASE, 1_000 + LEASE.leaseMs + 1)).toMatchObject({
      granted: true,
    });
    expect(await slots.running('dead', 1_000 + LEASE.leaseMs + 1)).toEqual(['y']);
  });

  it('drops a queued task that stopped asking once it reaches the front, so it blocks nobody', async () => {
    expect(await slots.claim('stale', slice('h'), max(1), LEASE, 1_000)).toMatchObject({ granted: true });
    expect(await slots.claim('stale', slice('gone'), max(1), LEASE, 1_100)).toMatchObject({ granted: false });
    expect(await slots.claim('stale', slice('w'), max(1), LEASE, 1_200)).toMatchObject({ granted: false });
    expect(await slots.release('stale', 'h', LEASE.staleMs, 2_000)).toEqual([slice('gone')]);
    // `gone` was stopped while queued and never asks again; w asks past the stale limit and gets in.
    expect(await slots.claim('stale', slice('w'), max(1), LEASE, 1_100 + LEASE.staleMs + 1)).toMatchObject({
      granted: true,
    });
    expect(await slots.waiting('stale')).toBe(0);
  });

  it('never lets one tenant’s queue touch another’s places', async () => {
    for (const id of ['p', 'q']) await slots.claim('full', slice(id), max(2), LEASE, 1_000);
    expect(await slots.claim('full', slice('r'), max(2), LEASE, 1_000)).toMatchObject({ granted: false });
    expect(await slots.claim('free', slice('s'), max(2), LEASE, 1_000)).toMatchObject({ granted: true });
  });
});
