import type { ActionRecord } from '@vigil/tasks';
import { RedisTestContext, VigilStack } from '@vigil/testing';

/** `vigil_slice_context_loads_total{source}` of one worker, from its /metrics. */
async function contextLoads(port: number): Promise<{ held: number; stale: number; none: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const count = (source: string) =>
    Number(
      new RegExp(`vigil_slice_context_loads_total\\{source="${source}"[^}]*\\} (\\d+)`).exec(text)?.[1] ??
        NaN,
    );
  return { held: count('held'), stale: count('held_stale'), none: count('none_held') };
}

describe('slice contexts held by workers, with two worker processes taking turns', () => {
  const ctx = new RedisTestContext('held-context');
  const stack = new VigilStack(ctx, {
    SLICE_MAX_STEPS: '3',
    TASK_MAX_SLICES: '24',
    // One slot each for 8 tasks: while more than two are left, slice jobs wait, so a slice hands its
    // task on through the queue (rather than continuing in place) and tasks move between the workers.
    WORKER_CONCURRENCY: '1',
  });
  afterAll(() => ctx.close());

  it('reuses a context only when it is current: every step is done once, wherever its slice ran', async () => {
    await stack.start('api');
    // Every task queued before a Worker takes any: the first slices to end see jobs waiting (a
    // Worker learns the backlog once a second, so one that started on an empty queue would keep its
    // task), and both Workers take from the start (on a loaded machine one may boot seconds after
    // the other, and would otherwise find the tasks done).
    const queue = ctx.sliceQueue();
    await queue.pause();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const created = await stack.api!.post('/v1/tasks', { kind: 'noop', input: { steps: 45, stepMs: 5 } });
      expect(created.status).toBe(201);
      ids.push(created.body.id as string);
    }
    const workers = await Promise.all([stack.start('worker'), stack.start('worker')]);
    await queue.resume();
    for (const id of ids)
      await stack.waitForTask(
        id,
        (t) => t.status === 'verifying' || t.status === 'completed',
        60_000,
        'verifying',
      );

    for (const id of ids) {
      const actions = (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1)).map(
        (raw) => JSON.parse(raw) as ActionRecord,
      );
      const keys = actions.filter((a) => a.tool === 'noop_step').map((a) => a.key);
      expect(keys).toEqual(Array.from({ length: 45 }, (_, i) => `step:${i}`));
      expect(actions.every((a) => a.attempt === 1 && !a.error)).toBe(true);
    }

    const loads = await Promise.all(workers.map((worker) => contextLoads(worker.port!)));
    const total = (source: 'held' | 'stale' | 'none') => loads.reduce((sum, l) => sum + l[source], 0);
    // 8 tasks × 16 slices, every start counted once; all three paths taken: reuse where a worker
    // ran the task's previous slice, a held context refused where the other worker ran since.
    expect(total('held') + total('stale') + total('none')).toBe(8 * 16);
    expect(total('held')).toBeGreaterThan(0);
    expect(total('stale')).toBeGreaterThan(0);
  }, 90_000);
});

describe('slice contexts held by a single worker', () => {
  const ctx = new RedisTestContext('held-context-one');
  const stack = new VigilStack(ctx, {
    SLICE_MAX_STEPS: '2',
    WORKER_CONCURRENCY: '8',
  });
  afterAll(() => ctx.close());

  it('reads each task context from Redis once; every later slice starts from the held one', async () => {
    await stack.start('api');
    const worker = await stack.start('worker');
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const created = await stack.api!.post('/v1/tasks', { kind: 'noop', input: { steps: 20 } });
      ids.push(created.body.id as string);
    }
    const finished = await Promise.all(
      ids.map((id) =>
        stack.waitForTask(id, (t) => t.status === 'verifying' || t.status === 'completed', 60_000),
      ),
    );
    const slices = finished.reduce((sum, task) => sum + task.sliceCount, 0);
    expect(slices).toBe(8 * 11);
    // The next slice can start on this worker before the previous one has returned: the context
    // must be kept before the next slice is published, or the start reads it from Redis again.
    expect(await contextLoads(worker.port!)).toEqual({ held: slices - 8, stale: 0, none: 8 });
  }, 90_000);
});
