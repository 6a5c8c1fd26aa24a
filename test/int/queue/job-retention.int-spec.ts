import { Worker } from 'bullmq';
import { bullConnection, JobRetention, SliceQueue, type SliceJob } from '@vigil/queue';
import { TaskRepository } from '@vigil/tasks';
import { FakeToolGateway, newNoopTask, RedisTestContext, SliceRunnerHarness } from '@vigil/testing';

/**
 * Finished slice and wake jobs leave Redis (docs/operations.md, "Sizing Redis"): noop tasks run
 * slice by slice through a real BullMQ worker on the slice queue, the Worker's SliceRunner behind
 * it, publishing with a short retention; the queues keep no completed job beyond its count or age.
 */
describe('finished BullMQ jobs are removed by count and age', () => {
  const ctx = new RedisTestContext('job-retention', { SLICE_MAX_STEPS: '2', GLOBAL_SPEND_LIMIT_USD: '' });
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const sliceQueue = ctx.sliceQueue();
  const wakeQueue = ctx.wakeQueue();
  const connection = bullConnection(ctx.config.redisUrl);
  let created = 0;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** A Worker's slice runner behind a BullMQ worker; slices and wake-ups kept for `retention`. */
  function workerKeeping(retention: JobRetention): { close: () => Promise<void> } {
    const runner = new SliceRunnerHarness(ctx, { retention }).runner(new FakeToolGateway([]));
    const worker = new Worker<SliceJob>(sliceQueue.name, (job) => runner.run(job.data), {
      connection,
      prefix: ctx.prefix,
      concurrency: 4,
      maxStalledCount: 0,
    });
    return { close: () => worker.close() };
  }

  /** Creates noop tasks of 6 steps (3 slices of 2) and publishes each one's first slice. */
  async function runTasks(count: number, retention: JobRetention): Promise<string[]> {
    const slices = new SliceQueue([sliceQueue], ctx.keys, retention);
    const ids = Array.from({ length: count }, () => `retention-${created++}`);
    for (const id of ids) {
      await tasks.create(id, newNoopTask({ input: { steps: 6 }, totalUnits: 6 }));
      await slices.publish({ taskId: id, attempt: 1, slice: 1, reason: 'created' });
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      const statuses = await Promise.all(ids.map(async (id) => (await tasks.get(id))?.status));
      // The last slice's job finishes just after its task reached verifying.
      const { waiting, active } = await sliceQueue.getJobCounts('waiting', 'active');
      if (statuses.every((status) => status === 'verifying') && waiting + active === 0) return ids;
      if (Date.now() > deadline) throw new Error(`tasks did not all reach verifying: ${statuses.join(', ')}`);
      await sleep(50);
    }
  }

  /** Every slice job id the tasks' slices ran under, and which of their job hashes are still in Redis. */
  async function keptSliceJobs(ids: string[]): Promise<{ ran: string[]; kept: string[] }> {
    const ran: string[] = [];
    for (const id of ids) {
      const task = await tasks.get(id);
      for (let slice = 1; slice <= (task?.sliceCount ?? 0); slice++) ran.push(`${id}-a1-s${slice}`);
    }
    const kept: string[] = [];
    for (const jobId of ran)
      if (await ctx.redis.exists(`${ctx.prefix}:${sliceQueue.name}:${jobId}`)) kept.push(jobId);
    return { ran, kept };
  }

  afterAll(() => ctx.close());

  it('keeps at most `count` completed slice jobs and wake jobs, their hashes gone with them', async () => {
    const retention = { completed: { age: 3_600, count: 4 }, failed: { age: 3_600, count: 4 } };
    const worker = workerKeeping(retention);
    try {
      const ids = await runTasks(6, retention);
      const { ran, kept } = await keptSliceJobs(ids);
      expect(ran.length).toBeGreaterThanOrEqual(6 * 3);
      expect(kept).toHaveLength(4);
      expect(await sliceQueue.getJobCounts('completed', 'failed')).toEqual({ completed: 4, failed: 0 });
      // Each task woke the Watcher once (verifying); four of those six jobs are kept.
      expect(await wakeQueue.getJobCounts('waiting')).toEqual({ waiting: 6 });
    } finally {
      await worker.close();
    }
    // Nothing consumed the wake-ups here: drain them as a Watcher would, under the same retention.
    const waker = new Worker(wakeQueue.name, async () => 'woken', { connection, prefix: ctx.prefix });
    try {
      const deadline = Date.now() + 10_000;
      const unfinished = async () => {
        const { waiting, active } = await wakeQueue.getJobCounts('waiting', 'active');
        return waiting + active;
      };
      while ((await unfinished()) > 0 && Date.now() < deadline) await sleep(50);
      expect(await wakeQueue.getJobCounts('waiting', 'completed')).toEqual({ waiting: 0, completed: 4 });
    } finally {
      await waker.close();
    }
  });

  it('removes completed slice jobs older than `age` when the next job finishes', async () => {
    await sliceQueue.obliterate({ force: true });
    const retention = { completed: { age: 1, count: 1_000 }, failed: { age: 1, count: 1_000 } };
    const worker = workerKeeping(retention);
    try {
      const first = await runTasks(3, retention);
      expect((await keptSliceJobs(first)).kept.length).toBeGreaterThan(0);
      // Older than the age now: the next task's first finished slice removes them.
      await sleep(1_100);
      const next = await runTasks(1, retention);
      expect((await keptSliceJobs(first)).kept).toEqual([]);
      const { ran, kept } = await keptSliceJobs(next);
      expect(kept.length).toBeGreaterThanOrEqual(1);
      expect(ran).toEqual(expect.arrayContaining(kept));
      expect((await sliceQueue.getJobCounts('completed')).completed).toBe(kept.length);
    } finally {
      await worker.close();
    }
  });
});
