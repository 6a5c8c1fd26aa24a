import { KindVersionGate, VersionWaits, WorkerKinds } from '@vigil/agent';
import { BUILT_IN_KINDS } from '@vigil/builtin-kinds';
import { KindRegistry, type TaskKind } from '@vigil/kinds';
import { IllegalTransitionError } from '@vigil/tasks';
import { FakeToolGateway, newNoopTask, RedisTestContext, SliceRunnerHarness } from '@vigil/testing';

/**
 * Kind versions on the Worker (docs/kinds.md, "Versions"), against the real Redis and slice queue:
 * a Worker whose kinds cannot run a task's recorded version never claims its slice; it hands the
 * job back when another live Worker can, and otherwise parks the task with its reason, out of every
 * clock and deadline; a Worker that runs the version continues it at the same attempt.
 */
describe('kind versions at slice pick-up', () => {
  const ctx = new RedisTestContext('kind-versions', { GLOBAL_SPEND_LIMIT_USD: '' });
  const harness = new SliceRunnerHarness(ctx);
  const { tasks, lifecycle } = harness;
  const workers = new WorkerKinds(ctx.redis, ctx.keys);
  afterAll(() => ctx.close());

  /** The built-in kinds with `noop` at `version`, continuing `compatible`. */
  const registry = (version: number, compatible: number[] = []) =>
    new KindRegistry(
      BUILT_IN_KINDS.map((kind): TaskKind =>
        kind.name === 'noop' ? { ...kind, version, compatibleVersions: compatible } : kind,
      ),
    );
  const gate = (version: number, workerId: string, compatible: number[]) =>
    new KindVersionGate(registry(version, compatible), workers, lifecycle, workerId);
  const tools = new FakeToolGateway([]);
  const runnerOf = (version: number, workerId: string, compatible: number[] = []) =>
    harness.runner(tools, { workerId, kindVersions: gate(version, workerId, compatible) });
  const firstSlice = { attempt: 1, slice: 1, reason: 'created' as const };
  let seq = 0;
  const noopTask = async () => {
    const id = `kv-${++seq}`;
    await tasks.create(id, newNoopTask());
    return id;
  };

  it('parks a task no live Worker runs, with its reason, out of every clock, without claiming it', async () => {
    const id = await noopTask();
    const outcome = await runnerOf(2, 'w-v2').run({ taskId: id, ...firstSlice });
    expect(outcome).toBe('kind_version_waits');
    expect(await tasks.get(id)).toMatchObject({
      status: 'paused',
      statusReason: 'kind_version_unavailable',
      kindVersion: 1,
      attempt: 1,
      sliceCount: 0,
      retryCount: 0,
    });
    expect(await ctx.redis.hget(ctx.keys.kindVersionWaits(0), id)).toBe('noop@1');
    expect(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), id)).toBeNull();
    expect(await ctx.redis.zscore(ctx.keys.expiryIndex(0), id)).toBeNull();
  });

  it('hands the job back, touching nothing, while another live Worker runs the version', async () => {
    const id = await noopTask();
    await workers.advertise('w-v1', { noop: [1] }, 60_000);
    try {
      expect(await runnerOf(2, 'w-v2').run({ taskId: id, ...firstSlice })).toBe('kind_version_elsewhere');
      expect(await tasks.get(id)).toMatchObject({ status: 'queued', statusReason: null, sliceCount: 0 });
      // Its own advertisement does not count, nor one that lapsed (and the lapsed one is removed).
      expect(await workers.anyRuns('noop', 1, 'w-v1')).toBe(false);
      await workers.advertise('w-gone', { noop: [1] }, -1);
      expect(await workers.anyRuns('noop', 1, 'w-v2')).toBe(true);
      await workers.withdraw('w-v1');
      expect(await workers.anyRuns('noop', 1, 'w-v2')).toBe(false);
      expect(await ctx.redis.hkeys(ctx.keys.workerKinds())).toEqual([]);
    } finally {
      await workers.withdraw('w-v1');
    }
  });

  it('continues a waiting task on a Worker whose kind runs its version, once, and runs it to its claim', async () => {
    const id = await noopTask();
    await runnerOf(2, 'w-v2').run({ taskId: id, ...firstSlice });
    const v3 = new VersionWaits(registry(3, [1]), workers, tasks, lifecycle, ctx.redis, ctx.keys, 'w-v3');
    const v2 = new VersionWaits(registry(2), workers, tasks, lifecycle, ctx.redis, ctx.keys, 'w-v2');
    expect(await v2.tick()).toEqual([]);
    expect((await tasks.get(id))?.status).toBe('paused');
    expect(await v3.tick()).toContain(id);
    expect(await v3.tick()).not.toContain(id);
    expect(await tasks.get(id)).toMatchObject({ status: 'queued', statusReason: null, attempt: 1 });
    expect(await ctx.redis.hget(ctx.keys.kindVersionWaits(0), id)).toBeNull();
    expect(JSON.parse((await ctx.redis.hget(ctx.keys.workerKinds(), 'w-v3'))!).runs).toMatchObject({
      noop: [3, 1],
    });
    // Its slice of the same attempt is published again (the job that parked it ended unrun).
    expect(await harness.slices.hasLiveJob({ taskId: id, attempt: 1, slice: 1 })).toBe(true);
    expect(await harness.runSlices(runnerOf(3, 'w-v3', [1]), id)).toEqual(['verifying']);
    await v3.onApplicationShutdown();
    await v2.onApplicationShutdown();
    expect(await ctx.redis.hkeys(ctx.keys.workerKinds())).toEqual([]);
  });

  it('continues only a task paused for its version, and forgets the wait of a task stopped meanwhile', async () => {
    const paused = await noopTask();
    await lifecycle.pause({ id: paused, tenantId: 'acme' });
    await expect(
      lifecycle.continueOnKindVersion({ id: paused, tenantId: 'acme', sliceCount: 0 }),
    ).rejects.toBeInstanceOf(IllegalTransitionError);
    expect(await tasks.get(paused)).toMatchObject({ status: 'paused', statusReason: 'user' });

    const stopped = await noopTask();
    await runnerOf(2, 'w-v2').run({ taskId: stopped, ...firstSlice });
    await lifecycle.stop({ id: stopped, tenantId: 'acme' });
    expect(await ctx.redis.hget(ctx.keys.kindVersionWaits(0), stopped)).toBeNull();
  });
});
