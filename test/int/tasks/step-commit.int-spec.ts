import { clusterSlot } from '@vigil/redis';
import {
  RedisTestContext,
  newNoopTask,
  observeScriptCalls,
  SmallRedis,
  stepAction,
  TEST_CLAIM,
  redisLifecycle,
} from '@vigil/testing';
import {
  IllegalTransitionError,
  MAX_STEPS_PER_CALL,
  StaleAttemptError,
  StepRecorder,
  TaskRepository,
} from '@vigil/tasks';

/** The group commit of steps (StepCommit): one record-steps.lua call per shard and tick. */
describe('steps recorded in the same tick', () => {
  const ctx = new RedisTestContext('step-commit', { SHARDS: '4' });
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const recorder = new StepRecorder(ctx.redis, ctx.keys, ctx.config);
  const { lifecycle } = redisLifecycle(ctx);
  let observed: ReturnType<typeof observeScriptCalls>;

  beforeEach(() => {
    observed = observeScriptCalls();
  });
  afterEach(() => observed.restore());
  afterAll(() => ctx.close());

  const running = async (id: string) => {
    const { task } = await tasks.create(id, newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    return task;
  };
  const step = (taskId: string, attempt = 1) => ({
    taskId,
    attempt,
    action: { ...stepAction('noop_step', `step:${taskId}`, {}, { ok: true }), attempt },
    succeeded: true,
    currentStep: `noop_step ${taskId}`,
  });
  /** A task id per name, each on `shard`. */
  const idsOnShard = (shard: number, prefix: string, names: string[]) =>
    names.map((name) => {
      let i = 0;
      while (ctx.keys.shardOf(`${prefix}-${name}-${i}`) !== shard) i++;
      return `${prefix}-${name}-${i}`;
    });
  const recordCalls = () => observed.calls.filter((call) => call.name === 'record-steps');

  it('goes in one call per shard, each step answered with its own figures and logged under its task', async () => {
    const ids = Array.from({ length: 24 }, (_, i) => `commit-${i}`);
    for (const id of ids) await running(id);
    const shards = new Set(ids.map((id) => ctx.keys.shardOf(id)));
    expect(shards.size).toBeGreaterThan(1);

    const recorded = await Promise.all(ids.map((id) => recorder.record(step(id))));

    expect(recordCalls()).toHaveLength(shards.size);
    for (const call of recordCalls()) expect(new Set(call.keys.map(clusterSlot)).size).toBe(1);
    expect(recorded.map((r) => [r.step, r.completedUnits])).toEqual(ids.map(() => [1, 1]));
    for (const id of ids) {
      const [entry] = await ctx.redis.lrange(ctx.keys.actions(id), 0, -1);
      expect(JSON.parse(entry)).toMatchObject({ step: 1, key: `step:${id}` });
      expect((await tasks.get(id))?.currentStep).toBe(`noop_step ${id}`);
    }
  });

  it('answers each step on its own: a refused step and one whose script fails leave the others applied', async () => {
    // One shard for all three, so they share a call.
    const [applied, stale, broken] = idsOnShard(0, 'mixed', ['a', 'b', 'c']);
    await running(applied);
    const staleTask = await running(stale);
    await lifecycle.failAttempt(staleTask, { attempt: 1, reason: 'hung_call', during: 'slice' });
    await running(broken);
    // Its action log is not a list: the step's first write raises WRONGTYPE inside the call.
    await ctx.redis.set(ctx.keys.actions(broken), 'not a list');

    const outcomes = await Promise.allSettled(
      [applied, stale, broken].map((id) => recorder.record(step(id))),
    );

    expect(recordCalls()).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { step: 1 } });
    expect(outcomes[1]).toMatchObject({ status: 'rejected' });
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(StaleAttemptError);
    expect(outcomes[2]).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({ message: expect.stringMatching(/WRONGTYPE/) }),
    });
    expect(await ctx.redis.llen(ctx.keys.actions(applied))).toBe(1);
    expect(await ctx.redis.llen(ctx.keys.actions(stale))).toBe(0);
    expect(await ctx.redis.get(ctx.keys.actions(broken))).toBe('not a list');
    expect(await ctx.redis.scard(ctx.keys.doneSteps(broken))).toBe(0);
  });

  it('carries a slice continued in place with the steps: running on, one more slice, its event; refused when not running', async () => {
    // One shard for all, so they share a call.
    const [stepping, continuing, paused] = idsOnShard(2, 'cont', ['s', 'c', 'p']);
    await running(stepping);
    await running(continuing);
    const pausedTask = await running(paused);
    await lifecycle.pause(pausedTask, {});
    const before = (await ctx.redis.xlen(ctx.keys.events(2))) as number;
    const move = { attempt: 1, workerId: 'worker-2', provider: 'google' as const, codeVersion: 'v2' };
    observed.calls.length = 0;

    const outcomes = await Promise.allSettled([
      recorder.record(step(stepping)),
      recorder.continueSlice(continuing, move, 1_000),
      recorder.continueSlice(paused, move, 1_000),
      recorder.continueSlice(continuing, { ...move, attempt: 2 }, 1_000),
    ]);

    expect(recordCalls()).toHaveLength(1);
    expect(observed.calls.filter((call) => call.name === 'transition-task')).toHaveLength(0);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { step: 1 } });
    expect(outcomes[1]).toEqual({ status: 'fulfilled', value: 2 });
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(IllegalTransitionError);
    expect((outcomes[3] as PromiseRejectedResult).reason).toBeInstanceOf(StaleAttemptError);
    expect(await tasks.get(continuing)).toMatchObject({
      status: 'running',
      sliceCount: 2,
      workerId: 'worker-2',
      provider: 'google',
      codeVersion: 'v2',
      lastHeartbeatAt: 1_000,
      updatedAt: 1_000,
    });
    expect(Number(await ctx.redis.zscore(ctx.keys.deadlineIndex(2), continuing))).toBe(
      1_000 + ctx.config.staleAfterMs,
    );
    expect(await tasks.get(paused)).toMatchObject({
      status: 'paused',
      sliceCount: 1,
      workerId: 'test-worker',
    });
    const events = (await ctx.redis.xrange(ctx.keys.events(2), '-', '+')).slice(before);
    const started = events.filter(([, fields]) => fields.includes('task.slice_started'));
    expect(started).toHaveLength(1);
    expect(started[0][1]).toEqual(
      expect.arrayContaining(['taskId', continuing, 'status', 'running', 'from', 'running', 'attempt', '1']),
    );
  });

  it(`carries at most ${MAX_STEPS_PER_CALL} steps in one call`, async () => {
    const ids: string[] = [];
    for (let i = 0; ids.length < MAX_STEPS_PER_CALL * 2 + 5; i++)
      if (ctx.keys.shardOf(`many-${i}`) === 1) ids.push(`many-${i}`);
    for (const id of ids) await running(id);

    await Promise.all(ids.map((id) => recorder.record(step(id))));

    expect(recordCalls().map((call) => (call.keys.length - 3) / 7)).toEqual([
      MAX_STEPS_PER_CALL,
      MAX_STEPS_PER_CALL,
      5,
    ]);
    for (const id of ids) expect(await ctx.redis.llen(ctx.keys.actions(id))).toBe(1);
  });

  it('records steps sent in different ticks in calls of their own', async () => {
    const ids = ['apart-1', 'apart-2'];
    for (const id of ids) await running(id);
    for (const id of ids) await recorder.record(step(id));
    expect(recordCalls()).toHaveLength(2);
  });
});

/** A server without the script (new, restarted, SCRIPT FLUSH): the call sends its source once. */
describe('steps recorded on a server that does not hold record-steps.lua', () => {
  let small: SmallRedis;
  let ctx: RedisTestContext;
  beforeAll(async () => {
    small = await SmallRedis.start({ portOffset: 4 });
    ctx = new RedisTestContext('step-commit-noscript', { REDIS_URL: small.url });
  });
  afterAll(async () => {
    await ctx?.close();
    await small?.stop();
  });

  it('loads it with the call and records the step, on a new server and after SCRIPT FLUSH', async () => {
    const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
    const recorder = new StepRecorder(ctx.redis, ctx.keys, ctx.config);
    const { lifecycle } = redisLifecycle(ctx);
    const { task } = await tasks.create('noscript', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const step = (n: number) => ({
      taskId: task.id,
      attempt: 1,
      action: stepAction('noop_step', `step:${n}`, {}, { ok: true }),
      succeeded: true,
      currentStep: `step ${n}`,
    });

    expect(await recorder.record(step(0))).toMatchObject({ step: 1, completedUnits: 1 });
    await small.admin.script('FLUSH');
    expect(await recorder.record(step(1))).toMatchObject({ step: 2, completedUnits: 2 });
    expect(await ctx.redis.llen(ctx.keys.actions(task.id))).toBe(2);
  });
});
