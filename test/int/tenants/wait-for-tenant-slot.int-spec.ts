import { RedisTestContext, newNoopTask } from '@vigil/testing';
import { IllegalTransitionError, RetentionPolicy, TaskRepository } from '@vigil/tasks';
import type { TransitionCommand } from '@vigil/tasks/lifecycle/transition-command';
import { TransitionWriter } from '@vigil/tasks/lifecycle/transition-writer';

const wait = (now: number): TransitionCommand => ({
  operation: 'wait_for_tenant_slot',
  to: 'queued',
  from: ['queued'],
  attempt: 1,
  statusReason: 'tenant_max_running',
  eventData: { waitingOn: 'tenant_max_running', maxRunning: 2 },
  now,
});

describe('transition-task.lua: wait_for_tenant_slot', () => {
  const ctx = new RedisTestContext('tenant-wait');
  const repo = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const writer = new TransitionWriter(
    ctx.redis,
    ctx.keys,
    ctx.config,
    new RetentionPolicy(ctx.config, ctx.config),
  );
  afterAll(() => ctx.close());

  it('keeps the task queued with its reason, stops its active clock, and a claim starts it again', async () => {
    const { task } = await repo.create('w1', newNoopTask({ tenantId: 'busy' }), '', 1_000);
    await writer.apply(task, wait(5_000));
    const waiting = await repo.get(task.id);
    expect(waiting).toMatchObject({ status: 'queued', statusReason: 'tenant_max_running', activeMs: 4_000 });
    // Out of the expiry index: a long wait for a place never fails the task by TASK_MAX_DURATION_MS.
    expect(await ctx.redis.zscore(ctx.keys.expiryIndex(0), task.id)).toBeNull();
    // Still due for the Watcher's pick-up check, which finds its parked job.
    expect(Number(await ctx.redis.zscore(ctx.keys.deadlineIndex(0), task.id))).toBe(
      5_000 + ctx.config.staleAfterMs,
    );
    const events = await ctx.redis.xrange(ctx.keys.events(0), '-', '+');
    expect(
      events
        .map(([, fields]) => fields)
        .filter((f) => f[3] === task.id)
        .map((f) => f[1]),
    ).toEqual(['task.created', 'task.progress']);
    // An hour waiting adds nothing to the clock; the claim restarts it and clears the reason.
    await writer.apply(task, {
      operation: 'claim_slice',
      to: 'running',
      from: ['queued'],
      attempt: 1,
      eventData: {},
      now: 3_605_000,
    });
    const running = await repo.get(task.id);
    expect(running).toMatchObject({ status: 'running', statusReason: null, activeMs: 4_000 });
    expect(Number(await ctx.redis.zscore(ctx.keys.expiryIndex(0), task.id))).toBe(
      3_605_000 + ctx.config.taskMaxDurationMs - 4_000,
    );
  });

  it('is refused from any status but queued', async () => {
    const { task } = await repo.create('w2', newNoopTask());
    await ctx.redis.hset(ctx.keys.task(task.id), 'status', 'running');
    await expect(
      writer.apply(task, { ...wait(2_000), from: [] } as TransitionCommand),
    ).rejects.toBeInstanceOf(IllegalTransitionError);
  });
});
