import { RedisTestContext, newNoopTask, TEST_CLAIM, redisLifecycle } from '@vigil/testing';
import { StaleAttemptError, StepRecorder, TaskNotActiveError, TaskRepository } from '@vigil/tasks';

describe('record-step.lua', () => {
  const ctx = new RedisTestContext('record-step');
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const recorder = new StepRecorder(ctx.redis, ctx.keys, ctx.config);
  const { lifecycle } = redisLifecycle(ctx);
  afterAll(() => ctx.close());

  const action = (extra: Record<string, unknown> = {}) => ({
    attempt: 1,
    slice: 1,
    tool: 'noop_step',
    key: 'step:0',
    args: { list: [] as unknown[] },
    result: { big: 12345678901234567890n.toString(), n: 12345678901234567, empty: [] as unknown[] },
    startedAt: 1,
    durationMs: 2,
    ...extra,
  });

  it('stores the action exactly as recorded, numbering it, and counts the step done once', async () => {
    const { task } = await tasks.create('rs-1', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const first = await recorder.record({
      taskId: task.id,
      attempt: 1,
      action: action(),
      succeeded: true,
      currentStep: 'a',
    });
    const again = await recorder.record({
      taskId: task.id,
      attempt: 1,
      action: action(),
      succeeded: true,
      currentStep: 'b',
    });
    expect([first.step, again.step]).toEqual([1, 2]);
    expect(again.completedUnits).toBe(1);
    const [stored] = await ctx.redis.lrange(ctx.keys.actions(task.id), 0, 0);
    expect(stored).toBe(`{"step":1,${JSON.stringify(action()).slice(1)}`);
    expect(JSON.parse(stored)).toEqual({ step: 1, ...action() });
    expect((await tasks.get(task.id))?.currentStep).toBe('b');
  });

  it('finds every field it reads and writes at the front of the task hash, whatever else the task holds', async () => {
    const { task } = await tasks.create('rs-order', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await recorder.record({
      taskId: task.id,
      attempt: 1,
      action: action(),
      succeeded: true,
      currentStep: 'a',
      writer: 'w',
      writerSeq: 1,
    });
    // A hash this small is a listpack, searched field by field from its start (create-task.lua).
    expect(await ctx.redis.object('ENCODING', ctx.keys.task(task.id))).toBe('listpack');
    const fields = await ctx.redis.hkeys(ctx.keys.task(task.id));
    expect(fields.slice(0, 23)).toEqual([
      'status',
      'attempt',
      'tenantId',
      'id',
      'totalUnits',
      'inFlight',
      'contextWriter',
      'contextWriterSeq',
      'contextVersion',
      'completedUnits',
      'actionsRecorded',
      'actionsRecordedAt',
      'progressEventAt',
      'deadlineIndexedAt',
      'consecutiveErrors',
      'lastHeartbeatAt',
      'updatedAt',
      'currentStep',
      'spentUsd',
      // What a slice's transitions read and write (transition-task.lua).
      'createdAt',
      'sliceCount',
      'statusReason',
      'codeVersion',
    ]);
    expect(fields.length).toBeGreaterThan(30);
    // Created empty, they read as they did when absent.
    const fresh = (await tasks.create('rs-order-fresh', newNoopTask())).task;
    expect([fresh.inFlight, fresh.currentStep, fresh.lastHeartbeatAt, fresh.contextVersion]).toEqual([
      null,
      null,
      null,
      0,
    ]);
  });

  it('records a step sent again by the same slice run once: a retried call whose reply was lost', async () => {
    const { task } = await tasks.create('rs-repeat', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const step = (writerSeq: number, key: string) => ({
      taskId: task.id,
      attempt: 1,
      action: action({ key }),
      succeeded: true,
      currentStep: key,
      writer: 'run-a',
      writerSeq,
      finding: { title: key, body: 'b', attempt: 1, at: 1 },
      spentUsd: 0.5,
    });
    const first = await recorder.record(step(1, 'step:0'));
    // The same call again, as a cluster client retries it after a failover: nothing changes.
    const repeat = await recorder.record(step(1, 'step:0'));
    expect(repeat).toEqual(first);
    const second = await recorder.record(step(2, 'step:1'));
    expect(second.step).toBe(2);
    expect(await ctx.redis.llen(ctx.keys.actions(task.id))).toBe(2);
    expect(await ctx.redis.llen(ctx.keys.findings(task.id))).toBe(2);
    expect((await tasks.get(task.id))?.spentUsd).toBeCloseTo(1, 6);
    // Another run (a later slice) numbers its steps from 1 again and is recorded.
    const next = await recorder.record({ ...step(1, 'step:2'), writer: 'run-b' });
    expect(next.step).toBe(3);
  });

  it('numbers steps and counts units from the record, and from the log and set when another writer moved them', async () => {
    const { task } = await tasks.create('rs-count', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const step = (key: string) => ({
      taskId: task.id,
      attempt: 1,
      action: action({ key }),
      succeeded: true,
      currentStep: key,
    });
    expect(await recorder.record(step('step:0'))).toMatchObject({ step: 1, completedUnits: 1 });
    // A Worker of an older release records a step: it appends, adds, recounts and bumps the
    // version, and knows nothing of actionsRecorded.
    await ctx.redis
      .multi()
      .rpush(ctx.keys.actions(task.id), '{"step":2}')
      .sadd(ctx.keys.doneSteps(task.id), 'step:1')
      .hset(ctx.keys.task(task.id), 'completedUnits', '2')
      .hincrby(ctx.keys.task(task.id), 'contextVersion', 1)
      .exec();
    expect(await recorder.record(step('step:2'))).toMatchObject({ step: 3, completedUnits: 3 });
    // The same key again is one unit, not two.
    expect(await recorder.record(step('step:2'))).toMatchObject({ step: 4, completedUnits: 3 });
    // A task written before these fields existed.
    await ctx.redis.hdel(ctx.keys.task(task.id), 'actionsRecorded', 'actionsRecordedAt');
    expect(await recorder.record(step('step:3'))).toMatchObject({ step: 5, completedUnits: 4 });
    expect(await ctx.redis.llen(ctx.keys.actions(task.id))).toBe(5);
    const stored = (await tasks.get(task.id))!;
    expect([stored.completedUnits, stored.contextVersion]).toEqual([4, 5]);

    // A task without a unit count has none stored until its first step: the set is counted.
    const { task: open } = await tasks.create('rs-count-open', { ...newNoopTask(), totalUnits: null });
    await lifecycle.claimSlice(open, { attempt: 1, ...TEST_CLAIM });
    expect((await tasks.get(open.id))!.completedUnits).toBeNull();
    const first = await recorder.record({ ...step('a'), taskId: open.id });
    expect(first).toMatchObject({ step: 1, completedUnits: 1 });
  });

  it('keeps progress in the record on every step and appends a task.progress event at most once per interval, and on the last unit', async () => {
    const { task } = await tasks.create('rs-coalesce', newNoopTask({ input: { steps: 4 }, totalUnits: 4 }));
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const progressEvents = async () =>
      (await ctx.redis.xrange(ctx.keys.events(0), '-', '+')).filter(
        ([, fields]) => fields[1] === 'task.progress' && fields[3] === task.id,
      );
    const interval = ctx.config.progressEventIntervalMs;
    expect(interval).toBeGreaterThan(0);
    const at = [1_000_000, 1_000_001, 1_000_002 + interval, 1_000_003 + interval];
    for (let i = 0; i < 3; i++)
      await recorder.record(
        {
          taskId: task.id,
          attempt: 1,
          action: action({ key: `step:${i}` }),
          succeeded: true,
          currentStep: `s${i}`,
        },
        at[i],
      );
    // The first step's event, none for the second (inside the interval), one once it has passed.
    const events = await progressEvents();
    expect(events.map(([, fields]) => JSON.parse(fields[15]).completedUnits)).toEqual([1, 3]);
    const stored = await tasks.get(task.id);
    expect([stored?.completedUnits, stored?.currentStep]).toEqual([3, 's2']);
    // The step that completes the last unit has its event however soon it comes.
    await recorder.record(
      { taskId: task.id, attempt: 1, action: action({ key: 'step:3' }), succeeded: true, currentStep: 's3' },
      at[3],
    );
    expect((await progressEvents()).map(([, fields]) => JSON.parse(fields[15]).completedUnits)).toEqual([
      1, 3, 4,
    ]);
  });

  it('moves the deadline index past the stale deadline in strides of an eighth of it, never to before it', async () => {
    const { task } = await tasks.create('rs-deadline', newNoopTask({ input: { steps: 9 }, totalUnits: 9 }));
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const stale = ctx.config.staleAfterMs;
    const slack = Math.floor(stale / 8);
    const score = async () => Number(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), task.id));
    const step = (i: number, at: number) =>
      recorder.record(
        {
          taskId: task.id,
          attempt: 1,
          action: action({ key: `step:${i}` }),
          succeeded: true,
          currentStep: `s${i}`,
        },
        at,
      );
    const t0 = 2_000_000;
    await step(0, t0);
    expect(await score()).toBe(t0 + stale + slack);
    // Within the stride: the index already holds a later deadline than this step's.
    await step(1, t0 + slack);
    expect(await score()).toBe(t0 + stale + slack);
    // Past it: moved again, one stride beyond the new deadline.
    await step(2, t0 + slack + 1);
    expect(await score()).toBe(t0 + slack + 1 + stale + slack);
  });

  it('counts consecutive errors and resets them on success', async () => {
    const { task } = await tasks.create('rs-2', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const failed = {
      taskId: task.id,
      attempt: 1,
      action: action({ error: 'x' }),
      succeeded: false,
      currentStep: 'x',
    };
    expect((await recorder.record(failed)).consecutiveErrors).toBe(1);
    expect((await recorder.record(failed)).consecutiveErrors).toBe(2);
    expect((await tasks.get(task.id))!.consecutiveErrors).toBe(2);
    const ok = await recorder.record({ ...failed, action: action(), succeeded: true });
    expect(ok.consecutiveErrors).toBe(0);
    expect((await tasks.get(task.id))!).toMatchObject({ consecutiveErrors: 0, contextVersion: 3 });
  });

  it('refuses a stale attempt and a stopped task, writing nothing', async () => {
    const { task } = await tasks.create('rs-3', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await lifecycle.failAttempt(task, { attempt: 1, reason: 'hung_call', during: 'slice' });
    const write = { taskId: task.id, attempt: 1, action: action(), succeeded: true, currentStep: 'zombie' };
    await expect(recorder.record(write)).rejects.toBeInstanceOf(StaleAttemptError);
    await expect(recorder.record({ ...write, attempt: 2 })).rejects.toBeInstanceOf(TaskNotActiveError);
    expect(await ctx.redis.llen(ctx.keys.actions(task.id))).toBe(0);
    expect(await ctx.redis.scard(ctx.keys.doneSteps(task.id))).toBe(0);
  });

  it("lists a step's artifacts under the step's number, once per id, and not again on a repeat of the call", async () => {
    const { task } = await tasks.create('rs-artifacts', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const png = { id: 'a'.repeat(64), mimeType: 'image/png', bytes: 120, width: 4, height: 3 };
    const pdf = { id: 'b'.repeat(64), mimeType: 'application/pdf', bytes: 900, name: 'r.pdf' };
    const entry = (ref: Record<string, unknown>) => ({
      ...ref,
      tool: 'shot',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    const step = (writerSeq: number, artifacts: Record<string, unknown>[]) =>
      recorder.record({
        taskId: task.id,
        attempt: 1,
        action: action({ key: null, result: [{ artifact: png }] }),
        succeeded: true,
        currentStep: 'shot',
        writer: 'run-1',
        writerSeq,
        artifacts: artifacts.map((ref) => entry(ref) as never),
      });
    await step(1, [png, pdf, png]);
    await step(1, [png, pdf]);
    await step(2, [png]);
    const stored = await ctx.redis.lrange(ctx.keys.artifacts(task.id), 0, -1);
    expect(stored.map((json) => JSON.parse(json) as unknown)).toEqual([
      { step: 1, ...entry(png) },
      { step: 1, ...entry(pdf) },
      { step: 2, ...entry(png) },
    ]);
    expect(stored[0]).toBe(`{"step":1,${JSON.stringify(entry(png)).slice(1)}`);
    expect(await ctx.redis.llen(ctx.keys.actions(task.id))).toBe(2);
  });
});
