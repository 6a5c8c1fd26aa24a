import { RedisTestContext, newNoopTask } from '@vigil/testing';
import {
  IllegalTransitionError,
  RetentionPolicy,
  StaleAttemptError,
  TASK_STATUSES,
  TaskNotActiveError,
  TaskRepository,
  TaskStatus,
} from '@vigil/tasks';
import { type TransitionCommand, type TransitionTarget } from '@vigil/tasks/lifecycle/transition-command';
import { TransitionWriter } from '@vigil/tasks/lifecycle/transition-writer';

/** The contract, written independently of the Lua table it checks. */
const ALLOWED: Record<TaskStatus, TaskStatus[]> = {
  queued: ['running', 'paused', 'cancelled', 'retrying', 'failed'],
  running: [
    'queued',
    'waiting_on_tool',
    'waiting_on_human',
    'verifying',
    'paused',
    'cancelled',
    'retrying',
    'failed',
  ],
  waiting_on_tool: [
    'running',
    'queued',
    'waiting_on_human',
    'verifying',
    'paused',
    'cancelled',
    'retrying',
    'failed',
  ],
  waiting_on_human: ['queued', 'paused', 'cancelled', 'failed'],
  paused: ['queued', 'cancelled', 'failed'],
  verifying: ['completed', 'retrying', 'failed', 'cancelled'],
  retrying: ['queued', 'failed', 'cancelled', 'paused'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** The operation that moves a task to each status (transition-task.lua's header), with its event data. */
function moveTo(to: TaskStatus, extra: Partial<TransitionCommand> = {}): TransitionCommand {
  const now = Date.now();
  const base = { to, now, ...extra };
  switch (to) {
    case 'queued':
      return { ...base, operation: 'hand_off_slice', eventData: {} } as TransitionCommand;
    case 'running':
      return { ...base, operation: 'claim_slice', eventData: {} } as TransitionCommand;
    case 'waiting_on_tool':
      return {
        ...base,
        operation: 'await_children',
        statusReason: 'children',
        eventData: { waitingOn: 'children' },
      } as TransitionCommand;
    case 'waiting_on_human':
      return {
        ...base,
        operation: 'ask_person',
        statusReason: 'human_input',
        eventData: { question: 'q' },
      } as TransitionCommand;
    case 'paused':
      return {
        ...base,
        operation: 'pause',
        statusReason: 'user',
        eventData: { by: 'user' },
      } as TransitionCommand;
    case 'verifying':
      return { ...base, operation: 'claim_done', eventData: { claim: 'done' } } as TransitionCommand;
    case 'retrying':
      return {
        ...base,
        operation: 'fail_attempt',
        eventData: { turnFailed: 'crashed' },
      } as TransitionCommand;
    case 'completed':
      return { ...base, operation: 'complete', eventData: { checks: [] } } as TransitionCommand;
    case 'failed':
      return {
        ...base,
        operation: 'fail',
        eventData: { reason: 'limit', detail: '', completedUnits: 0, totalUnits: null },
      } as TransitionCommand;
    case 'cancelled':
      return { ...base, operation: 'stop', eventData: { by: 'user' } } as TransitionCommand;
  }
}

describe('transition-task.lua', () => {
  const ctx = new RedisTestContext('transition');
  const repo = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const writer = new TransitionWriter(
    ctx.redis,
    ctx.keys,
    ctx.config,
    new RetentionPolicy(ctx.config, ctx.config),
  );
  const move = (task: TransitionTarget, to: TaskStatus, extra: Partial<TransitionCommand> = {}) =>
    writer.apply(task, moveTo(to, extra));
  let seq = 0;

  afterAll(() => ctx.close());

  /** A task in `status`, with one child still running (so a wait on children parks it). */
  async function taskIn(status: TaskStatus) {
    const id = `t${++seq}`;
    const { task } = await repo.create(id, newNoopTask());
    await ctx.redis.hset(ctx.keys.task(id), 'status', status, 'childrenTotal', 1, 'childrenDone', 0);
    return task;
  }

  const pairs = TASK_STATUSES.flatMap((from) => TASK_STATUSES.map((to) => [from, to] as const));

  it.each(pairs)('%s → %s follows the table', async (from, to) => {
    const task = await taskIn(from);
    const before = await ctx.redis.hgetall(ctx.keys.task(task.id));
    const streamBefore = await ctx.redis.xlen(ctx.keys.events(0));
    const attempt = ALLOWED[from].includes(to);
    if (attempt) {
      await expect(move(task, to)).resolves.toEqual({ status: to, attempt: 1, due: [], from });
      const after = await repo.get(task.id);
      expect(after?.status).toBe(to);
      expect(await ctx.redis.xlen(ctx.keys.events(0))).toBe(streamBefore + 1);
    } else {
      await expect(move(task, to)).rejects.toBeInstanceOf(IllegalTransitionError);
      expect(await ctx.redis.hgetall(ctx.keys.task(task.id))).toEqual(before);
      expect(await ctx.redis.xlen(ctx.keys.events(0))).toBe(streamBefore);
    }
  });

  it('maintains the indexes and appends the matching event', async () => {
    const { task } = await repo.create('idx1', newNoopTask({ tenantId: 'globex' }));
    const queuedIndex = ctx.keys.tenantStatusIndex(0, 'globex', 'queued');
    expect(await ctx.redis.zscore(queuedIndex, task.id)).not.toBeNull();
    await move(task, 'running', { attempt: 1, now: 1_000 });
    expect(await ctx.redis.zscore(queuedIndex, task.id)).toBeNull();
    expect(
      await ctx.redis.zscore(ctx.keys.tenantStatusIndex(0, 'globex', 'running'), task.id),
    ).not.toBeNull();
    expect(Number(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), task.id))).toBe(
      1_000 + ctx.config.staleAfterMs,
    );
    await move(task, 'verifying', { attempt: 1 });
    expect(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), task.id)).toBeNull();
    expect(await ctx.redis.zscore(ctx.keys.verifyingIndex(0), task.id)).not.toBeNull();
    await move(task, 'completed', { fields: { result: { summary: 'ok', checks: [], findings: [] } } });
    expect(await ctx.redis.zscore(ctx.keys.verifyingIndex(0), task.id)).toBeNull();
    expect(await ctx.redis.zscore(ctx.keys.expiryIndex(0), task.id)).toBeNull();
    expect(await ctx.redis.zscore(ctx.keys.updatesIndex(0), task.id)).toBeNull();
    const stored = await repo.get(task.id);
    expect(stored).toMatchObject({
      status: 'completed',
      result: { summary: 'ok', checks: [], findings: [] },
    });
    expect(stored?.finishedAt).not.toBeNull();
    const events = await ctx.redis.xrange(ctx.keys.events(0), '-', '+');
    const mine = events.map(([, fields]) => fields).filter((fields) => fields[3] === task.id);
    expect(mine.map((fields) => fields[1])).toEqual([
      'task.created',
      'task.started',
      'task.verifying',
      'task.completed',
    ]);
  });

  it('fences: after attempt 2 starts, every write tagged attempt 1 is rejected and changes nothing', async () => {
    const { task } = await repo.create('fence1', newNoopTask());
    await move(task, 'running', { attempt: 1 });
    await move(task, 'retrying', { attempt: 1, failedAttempt: { model: 'opus', reason: 'frozen' } });
    await move(task, 'queued', { attempt: 2 });
    await move(task, 'running', { attempt: 2 });
    const before = await ctx.redis.hgetall(ctx.keys.task(task.id));
    const streamBefore = await ctx.redis.xlen(ctx.keys.events(0));

    await expect(
      repo.heartbeat(task.id, 1, { currentStep: 'zombie', completedUnits: 99 }, true),
    ).rejects.toBeInstanceOf(StaleAttemptError);
    for (const to of TASK_STATUSES) {
      await expect(move(task, to, { attempt: 1, fields: { model: 'zombie' } })).rejects.toBeInstanceOf(
        StaleAttemptError,
      );
    }
    expect(await ctx.redis.hgetall(ctx.keys.task(task.id))).toEqual(before);
    expect(await ctx.redis.xlen(ctx.keys.events(0))).toBe(streamBefore);
    const stored = await repo.get(task.id);
    expect(stored?.attempt).toBe(2);
    expect(stored?.retryHistory).toEqual([
      expect.objectContaining({ attempt: 1, model: 'opus', reason: 'frozen' }),
    ]);
    await expect(repo.heartbeat(task.id, 2, { currentStep: 'live' }, false)).resolves.toBeUndefined();
  });

  it('heartbeats are refused once the task is stopped', async () => {
    const { task } = await repo.create('hb-stop', newNoopTask());
    await move(task, 'running', { attempt: 1 });
    await move(task, 'cancelled');
    await expect(repo.heartbeat(task.id, 1, { currentStep: 'late' }, true)).rejects.toBeInstanceOf(
      TaskNotActiveError,
    );
    expect((await repo.get(task.id))?.currentStep).toBeNull();
  });

  it('a stop wins every race against a running slice writing a stale copy (200 rounds)', async () => {
    const workerConn = ctx.redis.duplicate();
    const operatorConn = ctx.redis.duplicate();
    const workerRepo = new TaskRepository(workerConn, ctx.keys, ctx.config);
    const workerWriter = new TransitionWriter(
      workerConn,
      ctx.keys,
      ctx.config,
      new RetentionPolicy(ctx.config, ctx.config),
    );
    const operatorWriter = new TransitionWriter(
      operatorConn,
      ctx.keys,
      ctx.config,
      new RetentionPolicy(ctx.config, ctx.config),
    );
    try {
      for (let round = 0; round < 200; round++) {
        const { task } = await repo.create(`race${round}`, newNoopTask());
        await move(task, 'running', { attempt: 1 });
        // The slice holds a copy read before the stop and writes from it: progress, a next-slice
        // hand-off, then the next slice's claim. Each is allowed when no stop comes between.
        const slice = (async () => {
          const outcomes: string[] = [];
          for (const write of [
            () => workerRepo.heartbeat(task.id, 1, { currentStep: 'stale-copy', completedUnits: 2 }, true),
            () =>
              workerWriter.apply(
                task,
                moveTo('queued', { attempt: 1, from: ['running'], fields: { model: 'loser' } }),
              ),
            () => workerWriter.apply(task, moveTo('running', { attempt: 1, from: ['queued'] })),
          ]) {
            outcomes.push(
              await write().then(
                () => 'ok',
                (error: Error) => error.name,
              ),
            );
          }
          return outcomes;
        })();
        const stop = operatorWriter.apply(task, moveTo('cancelled'));
        const [outcomes] = await Promise.all([slice, stop]);
        const final = await repo.get(task.id);
        expect(final?.status).toBe('cancelled');
        // Stream order is the order the scripts ran in: nothing may follow the stop.
        const events = (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
          .map(([, fields]) => fields)
          .filter((fields) => fields[3] === task.id)
          .map((fields) => fields[1]);
        expect(events[events.length - 1]).toBe('task.cancelled');
        const sliceWritesBeforeStop = events.slice(2, -1).length;
        expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(sliceWritesBeforeStop);
        if (sliceWritesBeforeStop === 0) {
          expect(final?.currentStep).toBeNull();
          expect(final?.model).toBe('opus');
        }
        // Once refused, a slice is refused for good.
        const firstRefusal = outcomes.findIndex((outcome) => outcome !== 'ok');
        if (firstRefusal >= 0) expect(outcomes.slice(firstRefusal)).not.toContain('ok');
      }
    } finally {
      await workerConn.quit();
      await operatorConn.quit();
    }
  });

  /** Each operation and its one target, written independently of the Lua header it checks. */
  const TARGETS: Record<TransitionCommand['operation'], TaskStatus> = {
    claim_slice: 'running',
    hand_off_slice: 'queued',
    claim_done: 'verifying',
    ask_person: 'waiting_on_human',
    await_children: 'waiting_on_tool',
    pause_for_money: 'paused',
    fail_attempt: 'retrying',
    recover: 'retrying',
    fail_verification: 'retrying',
    complete: 'completed',
    requeue_for_retry: 'queued',
    continue_after_store_full: 'queued',
    fail: 'failed',
    stop: 'cancelled',
    cancel_child: 'cancelled',
    pause: 'paused',
    archive: 'paused',
    resume: 'queued',
    answer: 'queued',
    await_kind_version: 'paused',
    continue_on_kind_version: 'queued',
    wait_for_tenant_slot: 'queued',
  };
  const REASONS: Partial<Record<TransitionCommand['operation'], string>> = {
    ask_person: 'human_input',
    await_children: 'children',
    pause_for_money: 'budget',
    pause: 'user',
    archive: 'archived',
    await_kind_version: 'kind_version_unavailable',
    wait_for_tenant_slot: 'tenant_max_running',
  };
  const operations = Object.keys(TARGETS) as TransitionCommand['operation'][];

  it.each(operations)(
    '%s moves only to its own target, and refuses another before reading anything',
    async (operation) => {
      for (const to of TASK_STATUSES.filter((status) => status !== TARGETS[operation])) {
        const task = await taskIn('running');
        const before = await ctx.redis.hgetall(ctx.keys.task(task.id));
        const command = { operation, to, now: Date.now(), eventData: {}, statusReason: REASONS[operation] };
        await expect(writer.apply(task, command as TransitionCommand)).rejects.toThrow(/does not fit/);
        expect(await ctx.redis.hgetall(ctx.keys.task(task.id))).toEqual(before);
      }
    },
  );

  it('sets a statusReason only through the operations that name it', async () => {
    const task = await taskIn('running');
    // A pause by a person is never `archived`, a wait for a person never `children`.
    for (const [operation, reason] of [
      ['pause', 'archived'],
      ['ask_person', 'children'],
      ['claim_done', 'user'],
      ['pause_for_money', ''],
    ] as const) {
      const command = {
        operation,
        to: TARGETS[operation],
        now: Date.now(),
        eventData: {},
        statusReason: reason,
      };
      await expect(writer.apply(task, command as TransitionCommand)).rejects.toThrow(/does not fit/);
    }
    expect((await repo.get(task.id))?.status).toBe('running');
  });

  it('archive pauses and marks the task archived; a pause by a person does not', async () => {
    const archived = await taskIn('running');
    await writer.apply(archived, {
      operation: 'archive',
      to: 'paused',
      statusReason: 'archived',
      eventData: { by: 'conversation', reason: 'archived' },
      now: Date.now(),
    });
    expect(await repo.get(archived.id)).toMatchObject({
      status: 'paused',
      statusReason: 'archived',
      archived: true,
    });
    const paused = await taskIn('running');
    await move(paused, 'paused');
    expect(await repo.get(paused.id)).toMatchObject({
      status: 'paused',
      statusReason: 'user',
      archived: false,
    });
  });

  it('await_children parks a parent out of the deadline index, or queues it when its children ended', async () => {
    const waiting = await taskIn('running');
    await move(waiting, 'waiting_on_tool', { attempt: 1 });
    expect(await repo.get(waiting.id)).toMatchObject({ status: 'waiting_on_tool', statusReason: 'children' });
    expect(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), waiting.id)).toBeNull();
    const done = await taskIn('running');
    await ctx.redis.hset(ctx.keys.task(done.id), 'childrenDone', 1);
    await expect(move(done, 'waiting_on_tool', { attempt: 1 })).resolves.toMatchObject({ status: 'queued' });
    expect(await repo.get(done.id)).toMatchObject({ status: 'queued', statusReason: null });
    expect(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), done.id)).not.toBeNull();
  });

  it('names each event by its operation: a retry is task.recovered, a resume or answer task.resumed', async () => {
    const events = async (id: string) =>
      (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
        .map(([, fields]) => fields)
        .filter((fields) => fields[3] === id)
        .map((fields) => [fields[1], JSON.parse(fields[15]) as unknown]);
    const retried = await taskIn('retrying');
    await writer.apply(retried, {
      operation: 'requeue_for_retry',
      to: 'queued',
      eventData: { retryNumber: 1, reason: 'crashed', completedUnits: 0 },
      now: Date.now(),
    });
    expect(await events(retried.id)).toEqual([
      ['task.created', {}],
      ['task.recovered', { retryNumber: 1, reason: 'crashed', completedUnits: 0 }],
    ]);
    const answered = await taskIn('waiting_on_human');
    await writer.apply(answered, {
      operation: 'answer',
      to: 'queued',
      eventData: { by: 'user', input: true },
      now: Date.now(),
    });
    expect((await events(answered.id))[1]).toEqual(['task.resumed', { by: 'user', input: true }]);
  });
});
