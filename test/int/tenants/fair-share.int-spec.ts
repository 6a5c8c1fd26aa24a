import { RedisTestContext } from '@vigil/testing';
import { TenantSlots, type SlotRules } from '@vigil/tasks';

const LEASE = { leaseMs: 10_000, staleMs: 5_000 };
const slice = (taskId: string) => ({ taskId, jobId: `${taskId}-a1-s1` });
const fair = (weight = 1, maxRunning?: number): SlotRules => ({
  weight,
  fairShare: true,
  ...(maxRunning ? { maxRunning } : {}),
});

/**
 * The weighted fair share in claim-tenant-slot.lua and release-tenant-slot.lua (docs/operations.md,
 * "Tenant limits"). Each case runs at its own time, far from the others: their places have lapsed
 * and their queues gone stale, so no case's tenants compete with another's.
 */
describe('the fair share between tenants (claim-tenant-slot.lua)', () => {
  const ctx = new RedisTestContext('fair-share');
  const slots = new TenantSlots(ctx.redis, ctx.keys);
  afterAll(() => ctx.close());

  it('never holds back a tenant nobody else waits for: it takes every place it asks for', async () => {
    const now = 1_000_000;
    for (let i = 0; i < 30; i++)
      expect(await slots.claim('alone', slice(`alone-${i}`), fair(), LEASE, now)).toMatchObject({
        granted: true,
      });
    expect(await slots.running('alone', now)).toHaveLength(30);
  });

  it('shares the places by weight while both tenants wait: weight 2 holds twice the places of weight 1', async () => {
    const now = 2_000_000;
    for (let i = 0; i < 20; i++) {
      await slots.enqueue('heavy', slice(`heavy-${i}`), fair(2), now);
      await slots.enqueue('light', slice(`light-${i}`), fair(1), now);
    }
    // Free slots come one at a time, offered to each tenant's next queued task in turn.
    let heavy = 0;
    let light = 0;
    for (let round = 0; round < 12; round++) {
      if ((await slots.claim('heavy', slice(`heavy-${heavy}`), fair(2), LEASE, now + round)).granted) heavy++;
      if ((await slots.claim('light', slice(`light-${light}`), fair(1), LEASE, now + round)).granted) light++;
    }
    expect({ heavy, light }).toEqual({ heavy: 12, light: 6 });
    expect(await slots.running('heavy', now + 12)).toHaveLength(12);
  });

  it('parks the tenant over its share and names the parked job of the tenant whose turn it is', async () => {
    const now = 3_000_000;
    expect(await slots.claim('over', slice('over-1'), fair(), LEASE, now)).toMatchObject({ granted: true });
    // under's task was parked before (a Worker picked its job and it asked).
    await slots.enqueue('under', slice('under-1'), fair(), now);
    expect(await slots.claim('over', slice('over-2'), fair(), LEASE, now + 1)).toEqual({
      granted: false,
      running: 1,
      firstWait: true,
      reason: 'fair',
      wake: [slice('under-1')],
    });
    expect(await slots.claim('under', slice('under-1'), fair(), LEASE, now + 2)).toMatchObject({
      granted: true,
    });
    // Level again (one each, both waiting): the next claim, whoever's, is granted.
    expect(await slots.claim('over', slice('over-2'), fair(), LEASE, now + 3)).toMatchObject({
      granted: true,
    });
  });

  it('is not held back by a tenant that waits only for its own maxRunning, nor by one that stopped asking', async () => {
    const now = 4_000_000;
    expect(await slots.claim('capped', slice('capped-1'), fair(1, 1), LEASE, now)).toMatchObject({
      granted: true,
    });
    expect(await slots.claim('capped', slice('capped-2'), fair(1, 1), LEASE, now)).toMatchObject({
      granted: false,
      reason: 'max',
    });
    await slots.enqueue('silent', slice('silent-1'), fair(), now - LEASE.staleMs - 1);
    for (let i = 0; i < 5; i++)
      expect(await slots.claim('free', slice(`free-${i}`), fair(), LEASE, now)).toMatchObject({
        granted: true,
      });
  });

  it('wakes the first parked job of the tenant furthest below its share when a place is given back', async () => {
    const now = 5_000_000;
    for (const id of ['p-1', 'p-2']) await slots.claim('p', slice(id), fair(), LEASE, now);
    await slots.enqueue('q', slice('q-1'), fair(), now);
    await slots.enqueue('q', slice('q-2'), fair(), now + 1);
    expect(await slots.release('p', 'p-1', LEASE.staleMs, now + 2)).toEqual([slice('q-1')]);
    expect(await slots.running('p', now + 2)).toEqual(['p-2']);
  });
});
