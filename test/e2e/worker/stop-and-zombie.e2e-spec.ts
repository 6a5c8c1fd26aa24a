import type { Queue } from 'bullmq';
import { RedisTestContext, VigilStack } from '@vigil/testing';

describe('stop wins against a hung model call', () => {
  const ctx = new RedisTestContext('stop-hang');
  const stack = new VigilStack(ctx, {
    HEARTBEAT_INTERVAL_MS: '200',
    // Short enough that a Watcher would recover the hung slice soon after the stop, if it could.
    STALE_AFTER_MS: '3000',
    WATCHER_INTERVAL_MS: '200',
  });
  let queue: Queue;

  beforeAll(async () => {
    queue = ctx.sliceQueue();
    await stack.startAll();
  });
  afterAll(() => ctx.close());

  it('aborts the hung call within a second; the record stays cancelled; nothing is recovered', async () => {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: 10 },
      agent: { scripted: { hangAtStep: 4 } },
    });
    const id = created.body.id as string;
    const hung = await stack.waitForTask(
      id,
      (t) => t.completedUnits === 3 && t.status === 'running',
      20_000,
      'the hang',
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    // Hung: the model call has not returned, no step was recorded since, yet the Worker lives on.
    const waiting = (await stack.tasks.get(id))!;
    expect(waiting).toMatchObject({ status: 'running', completedUnits: 3, currentStep: hung.currentStep });
    expect(waiting.lastHeartbeatAt!).toBeGreaterThan(hung.lastHeartbeatAt!);

    const stoppedAt = Date.now();
    const stop = await stack.api!.post(`/v1/tasks/${id}/stop`);
    expect(stop.status).toBe(200);
    let finishedOn: number | undefined;
    while (!finishedOn && Date.now() - stoppedAt < 10_000) {
      finishedOn = (await queue.getJob(`${id}-a1-s1`))?.finishedOn;
      if (!finishedOn) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(finishedOn).toBeDefined();
    expect(finishedOn! - stoppedAt).toBeLessThan(1000);
    expect((await queue.getJob(`${id}-a1-s1`))?.returnvalue).toBe('aborted');

    // Past STALE_AFTER_MS since the last heartbeat: a stopped task is never recovered.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const task = (await stack.tasks.get(id))!;
    expect(task.status).toBe('cancelled');
    expect(task.completedUnits).toBe(3);
    expect(task.retryHistory).toEqual([]);
    const actions = await ctx.redis.llen(ctx.keys.actions(id));
    expect(actions).toBe(3);
  });
});
