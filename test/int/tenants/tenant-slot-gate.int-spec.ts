import { RedisTestContext, newNoopTask, FakeToolGateway, SliceRunnerHarness } from '@vigil/testing';
import { TenantSlots } from '@vigil/tasks';

/** The slice runner holding a tenant to `maxRunning` (docs/operations.md, "Tenant limits"). */
describe('SliceRunner and a tenant’s running places', () => {
  const ctx = new RedisTestContext('tenant-slot-gate', {
    SLICE_MAX_STEPS: '2',
    GLOBAL_SPEND_LIMIT_USD: '',
    TENANT_FAIR_SHARE: 'off',
  });
  const harness = new SliceRunnerHarness(ctx);
  const runner = harness.runner(new FakeToolGateway([]), {
    tenants: { one: { allow: [], maxRunning: 1 } },
  });
  const slots = new TenantSlots(ctx.redis, ctx.keys);
  const slice = (taskId: string, n: number) =>
    runner.run({ taskId, attempt: 1, slice: n, reason: 'next_slice' });
  afterAll(() => ctx.close());

  it('parks a second task while the first holds the place through its slices, and runs it once the first is done', async () => {
    const task = (tenantId: string) => newNoopTask({ tenantId, input: { steps: 4 }, totalUnits: 4 });
    await harness.tasks.create('first', task('one'));
    await harness.tasks.create('second', task('one'));
    await harness.tasks.create('elsewhere', task('other'));

    expect(await slice('first', 1)).toBe('next_slice');
    expect(await slots.running('one')).toEqual(['first']);
    expect(await slice('second', 1)).toBe('parked');
    expect(await harness.tasks.get('second')).toMatchObject({
      status: 'queued',
      statusReason: 'tenant_max_running',
      sliceCount: 0,
    });
    // Another tenant is not held up; without the fair share, a tenant without maxRunning has no places at all.
    expect(await slice('elsewhere', 1)).toBe('next_slice');
    expect(await ctx.redis.exists(ctx.keys.tenantSlots('other').running)).toBe(0);

    // The first task's next slice keeps its place; asked again, the second is still parked.
    expect(await slice('first', 2)).toBe('next_slice');
    expect(await slice('second', 1)).toBe('parked');
    // Its last slice claims "done": the place goes back.
    expect(await slice('first', 3)).toBe('verifying');
    expect(await slots.running('one')).toEqual([]);
    expect(await slice('second', 1)).toBe('next_slice');
    expect(await harness.tasks.get('second')).toMatchObject({
      status: 'queued',
      statusReason: null,
      sliceCount: 1,
    });
    expect(await slots.running('one')).toEqual(['second']);
  });
});
