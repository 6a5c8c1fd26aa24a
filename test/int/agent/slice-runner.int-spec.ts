import { SliceContextCache } from '@vigil/agent';
import { RedisTestContext, newNoopTask, FakeToolGateway, SliceRunnerHarness } from '@vigil/testing';

/** The slice runner in-process, with the scripted agent, against real Redis and a real slice queue. */
describe('SliceRunner and held contexts', () => {
  const ctx = new RedisTestContext('slice-runner', { SLICE_MAX_STEPS: '2', GLOBAL_SPEND_LIMIT_USD: '' });
  const harness = new SliceRunnerHarness(ctx);
  const { tasks } = harness;
  const held = new SliceContextCache(harness.config);
  const runner = harness.runner(new FakeToolGateway([]), { held });
  afterAll(() => ctx.close());

  const stepKeys = async (taskId: string) =>
    (await ctx.redis.lrange(ctx.keys.actions(taskId), 0, -1))
      .map((raw) => JSON.parse(raw) as { tool: string; key: string | null })
      .filter((action) => action.tool === 'noop_step')
      .map((action) => action.key);

  it('runs later slices from the held context, and never holds on to another task under a reused id', async () => {
    const id = 'reused-id';
    await tasks.create(id, newNoopTask({ input: { steps: 6 }, totalUnits: 6 }));
    const slice = (n: number) => runner.run({ taskId: id, attempt: 1, slice: n, reason: 'next_slice' });
    expect([await slice(1), await slice(2)]).toEqual(['next_slice', 'next_slice']);
    expect(held.starts).toEqual({ held: 1, stale: 0, none: 1 });
    expect(await stepKeys(id)).toEqual(['step:0', 'step:1', 'step:2', 'step:3']);

    // Redis lost the task; the same id comes back (a replayed Idempotency-Key) with another input.
    await ctx.cleanup();
    await tasks.create(id, newNoopTask({ input: { steps: 3 }, totalUnits: 3 }));
    const outcomes = await harness.runSlices(runner, id);
    expect(outcomes.at(-1)).toBe('verifying');
    expect(await stepKeys(id)).toEqual(['step:0', 'step:1', 'step:2']);
    expect(held.starts.stale).toBe(1);
  });
});
