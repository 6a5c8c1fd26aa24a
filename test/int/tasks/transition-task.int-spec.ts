import { RedisTestContext, newNoopTask } from '@vigil/testing';
import {
  IllegalTransitionError,
  StaleAttemptError,
  TASK_STATUSES,
  TaskNotActiveError,
  TaskRepository,
  TaskStatus,
} from '@vigil/tasks';

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

describe('transition-task.lua', () => {
  const ctx = new RedisTestContext('transition');
  const repo = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  let seq = 0;

  afterAll(() => ctx.close());

  async function taskIn(status: TaskStatus) {
    const id = `t${++seq}`;
    const { task } = await repo.create(id, newNoopTask());
    await ctx.redis.hset(ctx.keys.task(id), 'status', status);
    return task;
  }

  const pairs = TASK_STATUSES.flatMap((from) => TASK_STATUSES.map((to) => [from, to] as const));

  it.each(pairs)('%s → %s follows the table', async (from, to) => {
    const task = await taskIn(from);
    const before = await ctx.redis.hgetall(ctx.keys.task(task.id));
    const streamBefore = await ctx.redis.xlen(ctx.keys.events(0));
    const attempt = ALLOWED[from].includes(to);
    if (attempt) {
      await expect(repo.transition(task, to)).resolves.toEqual({ status: to, attempt: 1, due: [] });
      const after = await repo.get(task.id);
      expect(after?.status).toBe(to);
      expect(await ctx.redis.xlen(ctx.keys.events(0))).toBe(streamBefore + 1);
    } else {
      await expect(repo.transition(task, to)).rejects.toBeInstanceOf(IllegalTransitionError);
      expect(await ctx.redis.hgetall(ctx.keys.task(task.id))).toEqual(before);
      expect(await ctx.redis.xlen(ctx.keys.events(0))).toBe(streamBefore);
    }
  });

  it('maintains the indexes and appends the matching event', async () => {
    const { task } = await repo.create('idx1', newNoopTask({ tenantId: 'globex' }));
    const queuedIndex = ctx.keys.tenantStatusIndex(0, 'globex', 'queued');
    expect(await ctx.redis.zscore(queuedIndex, task.id)).not.toBeNull();
    await repo.transition(task, 'running', { attempt: 1 }, 1_000);
    expect(await ctx.redis.zscore(queuedIndex, task.id)).toBeNull();
    expect(
      await ctx.redis.zscore(ctx.keys.tenantStatusIndex(0, 'globex', 'running'), task.id),
    ).not.toBeNull();
    expect(Number(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), task.id))).toBe(
      1_000 + ctx.config.staleAfterMs,
    );
    await repo.transition(task, 'verifying', { attempt: 1 });
    expect(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), task.id)).toBeNull();
    expect(await ctx.redis.zscore(ctx.keys.verifyingIndex(0), task.id)).not.toBeNull();
    await repo.transition(task, 'completed', { fields: { result: { ok: true } } });
    expect(await ctx.redis.zscore(ctx.keys.verifyingIndex(0), task.id)).toBeNull();
    expect(await ctx.redis.zscore(ctx.keys.expiryIndex(0), task.id)).toBeNull();
    expect(await ctx.redis.zscore(ctx.keys.updatesIndex(0), task.id)).toBeNull();
    const stored = await repo.get(task.id);
    expect(stored).toMatchObject({ status: 'completed', result: { ok: true } });
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
    await repo.transition(task, 'running', { attempt: 1 });
    await repo.transition(task, 'retrying', {
      attempt: 1,
      failedAttempt: { model: 'opus', reason: 'frozen' },
    });
    await repo.transition(task, 'queued', { attempt: 2 });
    await repo.transition(task, 'running', { attempt: 2 });
    const before = await ctx.redis.hgetall(ctx.keys.task(task.id));
    const streamBefore = await ctx.redis.xlen(ctx.keys.events(0));

    await expect(
      repo.heartbeat(task.id, 1, { currentStep: 'zombie', completedUnits: 99 }, true),
    ).rejects.toBeInstanceOf(StaleAttemptError);
    for (const to of TASK_STATUSES) {
      await expect(
        repo.transition(task, to, { attempt: 1, fields: { result: 'zombie' } }),
      ).rejects.toBeInstanceOf(StaleAttemptError);
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
    await repo.transition(task, 'running', { attempt: 1 });
    await repo.transition(task, 'cancelled');
    await expect(repo.heartbeat(task.id, 1, { currentStep: 'late' }, true)).rejects.toBeInstanceOf(
      TaskNotActiveError,
    );
    expect((await repo.get(task.id))?.currentStep).toBeNull();
  });

  it('a stop wins every race against a running slice writing a stale copy (200 rounds)', async () => {
    const workerConn = ctx.redis.duplicate();
    const operatorConn = ctx.redis.duplicate();
    const workerRepo = new TaskRepository(workerConn, ctx.keys, ctx.config);
    const operatorRepo = new TaskRepository(operatorConn, ctx.keys, ctx.config);
    try {
      for (let round = 0; round < 200; round++) {
        const { task } = await repo.create(`race${round}`, newNoopTask());
        await repo.transition(task, 'running', { attempt: 1 });
        // The slice holds a copy read before the stop and writes from it: progress, a next-slice
        // hand-off, then the next slice's claim. Each is allowed when no stop comes between.
        const slice = (async () => {
          const outcomes: string[] = [];
          for (const write of [
            () => workerRepo.heartbeat(task.id, 1, { currentStep: 'stale-copy', completedUnits: 2 }, true),
            () =>
              workerRepo.transition(task, 'queued', {
                attempt: 1,
                from: ['running'],
                fields: { result: 'loser' },
              }),
            () => workerRepo.transition(task, 'running', { attempt: 1, from: ['queued'] }),
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
        const stop = operatorRepo.transition(task, 'cancelled');
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
          expect(final?.result).toBeNull();
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
});
