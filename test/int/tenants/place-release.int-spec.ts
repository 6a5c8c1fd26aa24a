import {
  RedisTestContext,
  newNoopTask,
  FakeToolGateway,
  SliceRunnerHarness,
  TEST_CLAIM,
} from '@vigil/testing';
import { TenantSlots, type StructuredFailure } from '@vigil/tasks';

const LEASE = { owner: 'watcher-1', expiresAt: Date.now() + 60_000 };
const FAILURE: StructuredFailure = {
  reason: 'limit',
  detail: 'TASK_MAX_DURATION_MS reached',
  completedUnits: 1,
  totalUnits: 5,
  verified: { checks: [], unavailable: [] },
  externalChanges: { counts: {}, keys: [] },
  unresolvedWrites: [],
  duplicatesCreated: 0,
  retryHistory: [],
  nextSteps: [],
};

/**
 * A running place goes back the moment a task's slices end without a next one, whichever way they
 * end (docs/operations.md, "Tenant limits"), never left to its lease (STALE_AFTER_MS, an hour here).
 */
describe('a tenant’s running place given back on every way out', () => {
  const ctx = new RedisTestContext('place-release', {
    SLICE_MAX_STEPS: '1',
    TASK_MAX_SLICES: '2',
    STALE_AFTER_MS: '3600000',
    GLOBAL_SPEND_LIMIT_USD: '',
  });
  const harness = new SliceRunnerHarness(ctx);
  const runner = harness.runner(new FakeToolGateway([]), { tenants: { one: { allow: [], maxRunning: 1 } } });
  const slots = new TenantSlots(ctx.redis, ctx.keys);
  const slice = (taskId: string, n: number, attempt = 1) =>
    runner.run({ taskId, attempt, slice: n, reason: 'next_slice' });
  const create = (id: string) =>
    harness.tasks.create(id, newNoopTask({ tenantId: 'one', input: { steps: 5 }, totalUnits: 5 }));
  afterAll(() => ctx.close());

  /** `holder` ran a slice and keeps its place for the next; `waiter` is parked behind it. */
  async function holderAndWaiter(holder: string, waiter: string): Promise<void> {
    await create(holder);
    await create(waiter);
    expect(await slice(holder, 1)).toBe('next_slice');
    expect(await slice(waiter, 1)).toBe('parked');
    expect(await slots.running('one')).toEqual([holder]);
  }

  /** The place is free at once: the parked task takes it, then gives it back for the next test. */
  async function placeFreedFor(waiter: string): Promise<void> {
    expect(await slots.running('one')).toEqual([]);
    expect(await slice(waiter, 1)).toBe('next_slice');
    expect(await slots.running('one')).toEqual([waiter]);
    await harness.lifecycle.stop({ id: waiter, tenantId: 'one' });
    expect(await slots.running('one')).toEqual([]);
  }

  it('when a user pauses the task between its slices', async () => {
    await holderAndWaiter('paused-holder', 'after-pause');
    await harness.lifecycle.pause({ id: 'paused-holder', tenantId: 'one' });
    await placeFreedFor('after-pause');
  });

  it('when a user stops the task between its slices (a terminal move)', async () => {
    await holderAndWaiter('stopped-holder', 'after-stop');
    await harness.lifecycle.stop({ id: 'stopped-holder', tenantId: 'one' });
    await placeFreedFor('after-stop');
  });

  it('when the Watcher fails it between its slices for its clock (a terminal move of the Watcher)', async () => {
    await holderAndWaiter('clock-out', 'after-clock');
    await harness.lifecycle.failForLimit(
      { id: 'clock-out', tenantId: 'one', attempt: 1 },
      { lease: LEASE, clock: 'active_time', failure: FAILURE },
    );
    expect(await harness.tasks.get('clock-out')).toMatchObject({ status: 'failed' });
    await placeFreedFor('after-clock');
  });

  it('when the Watcher recovers it from a Worker that died mid-slice', async () => {
    await create('crashed-holder');
    await create('after-crash');
    expect(await slice('crashed-holder', 1)).toBe('next_slice');
    expect(await slice('after-crash', 1)).toBe('parked');
    // Its next slice was claimed (running, holding the place), then its Worker died.
    const task = (await harness.tasks.get('crashed-holder'))!;
    await harness.lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await harness.lifecycle.recover(
      { id: task.id, tenantId: 'one', attempt: 1, model: task.model },
      { lease: LEASE, reason: 'crashed', detail: 'the Worker process is gone' },
    );
    await placeFreedFor('after-crash');
  });

  it('when its next slice’s claim fails the attempt at TASK_MAX_SLICES', async () => {
    await holderAndWaiter('sliced-out', 'after-max-slices');
    expect(await slice('sliced-out', 2)).toBe('next_slice');
    expect(await slice('sliced-out', 3)).toBe('failed_attempt');
    expect(await harness.tasks.get('sliced-out')).toMatchObject({ status: 'retrying' });
    await placeFreedFor('after-max-slices');
  });

  it('when its claim takes a place and then loses the task to a pause', async () => {
    await create('claim-loser');
    await create('after-lost-claim');
    const claimSlice = harness.lifecycle.claimSlice;
    // The pause lands between the runner's read of the task and its claim of the slice.
    jest.spyOn(harness.lifecycle, 'claimSlice').mockImplementationOnce(async (task, move) => {
      await harness.lifecycle.pause({ id: task.id, tenantId: task.tenantId });
      return claimSlice(task, move);
    });
    expect(await slice('claim-loser', 1)).toBe('skipped');
    expect(await harness.tasks.get('claim-loser')).toMatchObject({ status: 'paused' });
    expect(await slots.running('one')).toEqual([]);
    expect(await slice('after-lost-claim', 1)).toBe('next_slice');
    await harness.lifecycle.stop({ id: 'after-lost-claim', tenantId: 'one' });
  });

  it('and a parked task paused or stopped leaves its tenant’s queue at once', async () => {
    await holderAndWaiter('queue-holder', 'queued-then-paused');
    expect(await slots.waiting('one')).toBe(1);
    await harness.lifecycle.pause({ id: 'queued-then-paused', tenantId: 'one' });
    expect(await slots.waiting('one')).toBe(0);
    await harness.lifecycle.stop({ id: 'queue-holder', tenantId: 'one' });
  });
});
