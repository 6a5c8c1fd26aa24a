import { sectionsOf } from '@vigil/config';
import type { Redis } from 'ioredis';
import { newNoopTask, PERCENTAGE, RedisTestContext, TEST_CLAIM, redisLifecycle } from '@vigil/testing';
import { MessageLog, TaskRepository } from '@vigil/tasks';
import {
  DeliveryOutbox,
  UpdateScheduler,
  type UserMessage,
  WebhookChannel,
  WebhookQueues,
} from '@vigil/notify';

/**
 * The cadence script against the real Redis, with simulated time: each update slot of a task is
 * claimed once however many schedulers race for it, and nothing is sent while parked or after the end.
 */
describe('progress updates (claim-update.lua)', () => {
  const I = 1_000;
  const ctx = new RedisTestContext('notify-claims', { USER_UPDATE_INTERVAL_MS: String(I) });
  const repo = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const { lifecycle } = redisLifecycle(ctx);
  const log = new MessageLog(ctx.redis, ctx.keys);
  const { redis: redisConfig, webhooks, clocks, limits } = sectionsOf(ctx.config);
  const queues = new WebhookQueues(redisConfig, webhooks, ctx.keys);
  const outbox = new DeliveryOutbox(ctx.redis, ctx.keys, [new WebhookChannel(queues, ctx.config)]);
  const scheduler = (redis: Redis = ctx.redis) =>
    new UpdateScheduler(redis, ctx.keys, clocks, limits, new MessageLog(redis, ctx.keys), outbox);
  const T0 = Math.floor(Date.now() / 1000) * 1000;
  let seq = 0;
  const created: { id: string; tenantId: string }[] = [];

  // Each test's tasks end with it, so a tick's report speaks only of the tasks of the next test.
  afterEach(async () => {
    for (const task of created.splice(0)) await lifecycle.stop(task).catch(() => undefined);
  });

  afterAll(async () => {
    await queues.close();
    await ctx.close();
  });

  async function runningTask(overrides: Parameters<typeof newNoopTask>[0] = {}) {
    const { task } = await repo.create(
      `claim${seq++}`,
      newNoopTask({ totalUnits: 40, ...overrides }),
      '',
      T0,
    );
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM, now: T0 + 10 });
    created.push(task);
    return task;
  }

  const progress = async (taskId: string): Promise<UserMessage[]> =>
    (await log.list(taskId)).filter((message) => message.kind === 'progress');

  /** The progress message of update slot `slot`, as a scheduler claims it for attempt 1. */
  const progressUpdate = (taskId: string, slot: number) =>
    ({
      id: `${taskId}-up-${slot}`,
      taskId,
      kind: 'progress',
      text: 'x',
      sentAt: '',
      attempt: 1,
    }) as const;

  it('sends exactly one update per slot while five replicas race for every slot', async () => {
    const task = await runningTask();
    const connections = Array.from({ length: 5 }, () => ctx.redis.duplicate());
    const replicas = connections.map((connection) => scheduler(connection));
    try {
      for (let slot = 1; slot <= 30; slot++) {
        // Several ticks per slot, at jittered times, from every replica at once.
        for (const offset of [5, 180, 420, 990]) {
          const now = T0 + slot * I + offset;
          await Promise.all(replicas.map((replica) => replica.tick(now)));
        }
      }
    } finally {
      await Promise.all(connections.map((connection) => connection.quit()));
    }
    const sent = await progress(task.id);
    expect(sent.map((message) => message.id)).toEqual(
      Array.from({ length: 30 }, (_, i) => `${task.id}-up-${i + 1}`),
    );
    for (const [i, message] of sent.entries()) {
      expect(Math.floor((Date.parse(message.sentAt) - T0) / I)).toBe(i + 1);
    }
    expect(await ctx.redis.zscore(ctx.keys.updatesIndex(0), task.id)).toBe(String(T0 + 31 * I));
    expect((await repo.get(task.id))?.lastUserUpdateAt).toBe(T0 + 30 * I + 5);
  });

  it('is not due before its first slot, and an update already claimed is not sent again', async () => {
    const task = await runningTask();
    expect(await scheduler().tick(T0 + I / 2)).toEqual({});
    const message = progressUpdate(task.id, 0);
    const options = { now: T0 + I / 2, intervalMs: I, streamMaxLen: 1000 };
    expect(await log.claimUpdate(task.id, 0, message, [], options)).toBe('not_due');
    expect(await scheduler().tick(T0 + I + 1)).toEqual({ claimed: 1 });
    const again = { ...options, now: T0 + I + 600 };
    expect(await log.claimUpdate(task.id, 1, progressUpdate(task.id, 1), [], again)).toBe('not_due');
    expect(await progress(task.id)).toHaveLength(1);
  });

  it('skips slots while paused or waiting on the user, and resumes the cadence after', async () => {
    const task = await runningTask();
    await lifecycle.pause(task, { now: T0 + 20 });
    expect(await scheduler().tick(T0 + I + 1)).toEqual({ parked: 1 });
    expect(await ctx.redis.zscore(ctx.keys.updatesIndex(0), task.id)).toBe(String(T0 + 2 * I));
    await lifecycle.resume(task, { now: T0 + 2 * I + 10 });
    await lifecycle.claimSlice(task, { attempt: 2, ...TEST_CLAIM, now: T0 + 2 * I + 20 });
    await lifecycle.askPerson(task, { attempt: 2, question: 'Which?', now: T0 + 2 * I + 30 });
    expect(await scheduler().tick(T0 + 2 * I + 40)).toEqual({ parked: 1 });
    expect(await progress(task.id)).toHaveLength(0);
    await lifecycle.answer(task, { text: 'That one.', now: T0 + 3 * I });
    expect(await scheduler().tick(T0 + 3 * I + 50)).toEqual({ claimed: 1 });
    expect((await progress(task.id)).map((m) => m.id)).toEqual([`${task.id}-up-3`]);
  });

  it('sends nothing once the task ended: the index forgets it and a direct claim is refused', async () => {
    const task = await runningTask();
    await lifecycle.stop(task, { now: T0 + 500 });
    expect(await ctx.redis.zscore(ctx.keys.updatesIndex(0), task.id)).toBeNull();
    expect(await scheduler().tick(T0 + 5 * I)).toEqual({});
    const message = progressUpdate(task.id, 5);
    const options = { now: T0 + 5 * I, intervalMs: I, streamMaxLen: 1000 };
    expect(await log.claimUpdate(task.id, 5, message, [], options)).toBe('finished');
    expect(await ctx.redis.zscore(ctx.keys.updatesIndex(0), task.id)).toBeNull();
    expect(await log.list(task.id)).toHaveLength(0);
  });

  it('defers a slot so that two updates never land back to back after a late one', async () => {
    const task = await runningTask();
    expect(await scheduler().tick(T0 + 1.9 * I)).toEqual({ claimed: 1 });
    expect(await scheduler().tick(T0 + 2.1 * I)).toEqual({ not_due: 1 });
    expect(await ctx.redis.zscore(ctx.keys.updatesIndex(0), task.id)).toBe(String(T0 + 2.4 * I));
    expect(await scheduler().tick(T0 + 2.3 * I)).toEqual({});
    expect(await scheduler().tick(T0 + 2.45 * I)).toEqual({ claimed: 1 });
    const [first, second] = await progress(task.id);
    expect(Date.parse(second.sentAt) - Date.parse(first.sentAt)).toBeGreaterThanOrEqual(I / 2);
  });

  it('words each update from the record as it is at that moment', async () => {
    const task = await runningTask();
    await repo.heartbeat(task.id, 1, { currentStep: 'noop_step step:4', completedUnits: 5 }, false, T0 + 100);
    await scheduler().tick(T0 + I + 1);
    await repo.heartbeat(
      task.id,
      1,
      { currentStep: 'noop_step step:8', completedUnits: 9 },
      false,
      T0 + I + 100,
    );
    await scheduler().tick(T0 + 2 * I + 1);
    const [first, second] = await progress(task.id);
    expect(first.text).toContain('Current step: noop step (step:4). 5 of 40 steps are complete.');
    expect(second.text).toContain('Current step: noop step (step:8). 9 of 40 steps are complete.');

    const open = await runningTask({ totalUnits: null });
    await repo.heartbeat(open.id, 1, { currentStep: 'noop_step step:2', completedUnits: 3 }, false, T0 + 100);
    await scheduler().tick(T0 + I + 1);
    const [update] = await progress(open.id);
    expect(update.text).toContain('The task is still running normally');
    expect(update.text).not.toMatch(PERCENTAGE);
    expect(update.text).not.toMatch(/\d+ of \d+/);
  });

  it('carries each update to live streams as a task.progress event, and to the webhook outbox unless sandboxed', async () => {
    const hooked = await runningTask({ sandbox: false, notify: { webhookUrl: 'http://127.0.0.1:9/hook' } });
    const sandboxed = await runningTask({ sandbox: true, notify: { webhookUrl: 'http://127.0.0.1:9/hook' } });
    await scheduler().tick(T0 + I + 1);
    const events = (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
      .filter(([, fields]) => fields[3] === hooked.id && fields[1] === 'task.progress')
      .map(([, fields]) => JSON.parse(fields[fields.indexOf('data') + 1]));
    expect(events).toEqual([{ update: 1, message: (await progress(hooked.id))[0] }]);
    expect(await queues.queueFor(hooked.id).getJob(`${hooked.id}-up-1`)).toBeDefined();
    expect(await queues.queueFor(sandboxed.id).getJob(`${sandboxed.id}-up-1`)).toBeUndefined();
    expect(await progress(sandboxed.id)).toHaveLength(1);
    expect(await ctx.redis.zcard(ctx.keys.notifyOutbox(0))).toBe(0);
  });
});
