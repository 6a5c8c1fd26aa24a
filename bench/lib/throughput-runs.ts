import { Queue } from 'bullmq';
import { bullConnection, SLICE_JOB_NAME, SLICE_JOB_OPTIONS } from '@vigil/queue';
import { ControlSignals, TaskRepository } from '@vigil/tasks';
import type { AppProcess } from '@vigil/testing';
import {
  CommandCounts,
  diffCommandStats,
  readCommandStats,
  redisCpuMs,
  redisReads,
  totalCalls,
} from './commandstats';
import { BenchContext } from './context';
import type { LineChild } from './line-child';
import { cpuMs, mainThreadCpuMs, startApp, vmRssKiB } from './processes';
import { sleep } from './stats';
import { benchLifecycle, noopTask, sliceQueue } from './tasks';

/** The throughput bench's runs: Vigil's worker, the bare BullMQ worker, and the memory hold. */
export const TASKS = 200;

export interface Run {
  ms: number;
  units: number;
  commands: number;
  /** The same commands by name (a script's own calls counted apart from its EVALSHA). */
  byCommand: CommandCounts;
  /** CPU ms of the consuming process and of the Redis server over the run. */
  processCpuMs: number;
  /** Of which the main thread's (the JavaScript itself, which one core bounds). */
  mainThreadCpuMs: number;
  redisCpuMs: number;
  /** Socket reads the Redis server made over the run (all clients: the bench's own are a few). */
  redisReads: number;
}

/**
 * Wall time, Redis commands and CPU (the consumer process, any other processes named, and the
 * Redis server) around `work`.
 */
async function measureRun(
  ctx: BenchContext,
  pid: number,
  work: () => Promise<void>,
  others: Record<string, number> = {},
) {
  const before = await readCommandStats(ctx.stats);
  const othersCpu = () => Object.fromEntries(Object.entries(others).map(([name, id]) => [name, cpuMs(id)]));
  const [cpu0, main0, others0] = [cpuMs(pid), mainThreadCpuMs(pid), othersCpu()];
  const [redis0, reads0] = [await redisCpuMs(ctx.stats), await redisReads(ctx.stats)];
  const started = Date.now();
  await work();
  const ms = Date.now() - started;
  const [cpu1, main1, others1] = [cpuMs(pid), mainThreadCpuMs(pid), othersCpu()];
  const [redis1, reads1] = [await redisCpuMs(ctx.stats), await redisReads(ctx.stats)];
  const byCommand = diffCommandStats(before, await readCommandStats(ctx.stats));
  return {
    ms,
    commands: totalCalls(byCommand),
    byCommand,
    processCpuMs: cpu1 - cpu0,
    mainThreadCpuMs: main1 - main0,
    othersCpuMs: Object.fromEntries(Object.keys(others).map((name) => [name, others1[name] - others0[name]])),
    redisCpuMs: redis1 - redis0,
    redisReads: reads1 - reads0,
  };
}

/** The worker's `vigil_slice_context_loads_total` by source, from its /metrics. */
export async function contextLoads(
  worker: AppProcess,
): Promise<{ held: number; stale: number; none: number }> {
  const port = /ready on port (\d+)/.exec(worker.text())?.[1];
  if (!port) throw new Error('worker: no port in its ready line');
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const count = (source: string) =>
    Number(
      new RegExp(`vigil_slice_context_loads_total\\{source="${source}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? 0,
    );
  return { held: count('held'), stale: count('held_stale'), none: count('none_held') };
}

/** Where a run's tasks end: `verifying` with a Worker alone, `completed` once a Watcher verifies them. */
export interface RunEnd {
  status: 'verifying' | 'completed';
  /** The other processes whose CPU the run reports (by name): the Watcher, notifier and API of a whole stack. */
  others?: Record<string, AppProcess>;
}

/** All TASKS noop tasks through the real worker process, from first publish to all at `end.status`. */
export async function vigilRun(
  ctx: BenchContext,
  worker: AppProcess,
  round: number,
  steps: number,
  rss: number[],
  end: RunEnd = { status: 'verifying' },
): Promise<
  Run & {
    toolSteps: number;
    contextLoads: { held: number; stale: number; none: number };
    othersCpuMs: Record<string, number>;
  }
> {
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const { slices, close } = sliceQueue(ctx);
  const tenantId = `bench-r${round}`;
  const ids = Array.from({ length: TASKS }, (_, i) => `tp-r${round}-${i}`);
  await Promise.all(ids.map((id) => tasks.create(id, { ...noopTask(steps), tenantId })));
  const reached = ctx.keys.tenantStatusIndex(0, tenantId, end.status);
  // Without a Watcher a failed attempt leaves its task in retrying, for good; with one, a retry is
  // a failure of the bench all the same.
  const failedTurns = ctx.keys.tenantStatusIndex(0, tenantId, 'retrying');
  const failed = ctx.keys.tenantStatusIndex(0, tenantId, 'failed');
  const loadsBefore = await contextLoads(worker);
  const sampler = setInterval(() => rss.push(vmRssKiB(worker.child.pid!)), 50);
  let measured;
  try {
    const others = Object.fromEntries(
      Object.entries(end.others ?? {}).map(([name, app]) => [name, app.child.pid!]),
    );
    measured = await measureRun(
      ctx,
      worker.child.pid!,
      async () => {
        const started = Date.now();
        await Promise.all(
          ids.map((taskId) => slices.publish({ taskId, attempt: 1, slice: 1, reason: 'created' })),
        );
        while ((await ctx.redis.zcard(reached)) < TASKS) {
          if (Date.now() - started > 300_000)
            throw new Error(`vigil run: tasks did not all reach ${end.status} in 300 s`);
          if (worker.child.exitCode !== null)
            throw new Error(`worker exited:\n${worker.text().slice(-2000)}`);
          // A task whose attempt failed never reaches verifying: say why at once rather than at the
          // timeout (SLICE_MAX_STEPS × TASK_MAX_SLICES below the task's length, say).
          const [first] = [
            ...(await ctx.redis.zrange(failedTurns, '0', '0')),
            ...(await ctx.redis.zrange(failed, '0', '0')),
          ];
          if (first) {
            const [failure, history] = await ctx.redis.hmget(ctx.keys.task(first), 'failure', 'retryHistory');
            throw new Error(
              `vigil run: task ${first} failed its attempt: ${failure || history || 'no reason recorded'}`,
            );
          }
          await sleep(20);
        }
      },
      others,
    );
  } finally {
    clearInterval(sampler);
    await close();
  }
  const pipeline = ctx.redis.pipeline();
  for (const id of ids) pipeline.llen(ctx.keys.actions(id)).hget(ctx.keys.task(id), 'completedUnits');
  const replies = ((await pipeline.exec()) ?? []).map(([, value]) => Number(value));
  const toolSteps = replies.filter((_, i) => i % 2 === 0).reduce((a, b) => a + b, 0);
  const units = replies.filter((_, i) => i % 2 === 1).reduce((a, b) => a + b, 0);
  if (units !== TASKS * steps) throw new Error(`vigil run: ${units} of ${TASKS * steps} steps recorded`);
  const loadsAfter = await contextLoads(worker);
  const loads = {
    held: loadsAfter.held - loadsBefore.held,
    stale: loadsAfter.stale - loadsBefore.stale,
    none: loadsAfter.none - loadsBefore.none,
  };
  return { ...measured, units, toolSteps, contextLoads: loads };
}

/**
 * Memory held per concurrent task: TASKS slow noop tasks (100 ms steps) all running at once on the
 * worker; VmRSS sampled every 100 ms while all are running, then the tasks are stopped.
 */
export async function holdRss(ctx: BenchContext, worker: AppProcess, seconds: number): Promise<number[]> {
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const signals = new ControlSignals(ctx.redis, ctx.keys);
  const { slices, close } = sliceQueue(ctx);
  const tenantId = 'bench-hold';
  const ids = Array.from({ length: TASKS }, (_, i) => `tp-hold-${i}`);
  try {
    await Promise.all(ids.map((id) => tasks.create(id, { ...noopTask(1_000, 100), tenantId })));
    await Promise.all(
      ids.map((taskId) => slices.publish({ taskId, attempt: 1, slice: 1, reason: 'created' })),
    );
    const running = ctx.keys.tenantStatusIndex(0, tenantId, 'running');
    const deadline = Date.now() + 60_000;
    while ((await ctx.redis.zcard(running)) < TASKS) {
      if (Date.now() > deadline) throw new Error('rss: tasks did not all start within 60 s');
      await sleep(50);
    }
    const samples: number[] = [];
    for (let i = 0; i < seconds * 10; i++, await sleep(100)) samples.push(vmRssKiB(worker.child.pid!));
    return samples;
  } finally {
    for (const id of ids) {
      const task = await tasks.get(id);
      if (task)
        await benchLifecycle(ctx.redis, ctx.keys, ctx.config)
          .stop(task)
          .catch(() => undefined);
      await signals.publish({ taskId: id, action: 'stop' });
    }
    await close();
  }
}

/** The same number of no-op jobs, queued up front, through the bare BullMQ worker process. */
export async function rawRun(
  ctx: BenchContext,
  raw: LineChild,
  queueName: string,
  round: number,
  jobs: number,
): Promise<Run> {
  const queue = new Queue(queueName, { connection: bullConnection(ctx.config.redisUrl), prefix: ctx.prefix });
  try {
    for (let i = 0; i < jobs; i += 1000) {
      await queue.addBulk(
        Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({
          name: SLICE_JOB_NAME,
          data: { taskId: `raw-${i + j}`, attempt: 1, slice: 1, reason: 'created' },
          opts: { ...SLICE_JOB_OPTIONS, jobId: `raw-r${round}-${i + j}` },
        })),
      );
    }
    const measured = await measureRun(ctx, raw.pid, async () => {
      const done = raw.waitFor('done', 300_000);
      raw.send(`go ${jobs}`);
      await done;
    });
    raw.send('pause');
    await raw.waitFor('paused');
    return { ...measured, units: jobs };
  } finally {
    await queue.close();
  }
}

/**
 * The same noop tasks through two worker processes at half the concurrency each, on a prefix of
 * their own: how often a slice still starts from a context its worker held.
 */
export async function twoWorkerRun(
  dist: string,
  steps: number,
): Promise<{ stepsPerSec: number; loads: { held: number; stale: number; none: number } }> {
  const ctx = new BenchContext('throughput-two-workers');
  const workers: AppProcess[] = [];
  try {
    workers.push(
      ...(await Promise.all(
        [0, 1].map(() => startApp(dist, 'worker', ctx.env({ WORKER_CONCURRENCY: String(TASKS / 2) }))),
      )),
    );
    await vigilRun(ctx, workers[0], -1, Math.min(steps, 28), []);
    const before = await Promise.all(workers.map((worker) => contextLoads(worker)));
    const run = await vigilRun(ctx, workers[0], 0, steps, []);
    const after = await Promise.all(workers.map((worker) => contextLoads(worker)));
    const total = (
      loads: { held: number; stale: number; none: number }[],
      source: 'held' | 'stale' | 'none',
    ) => loads.reduce((sum, l) => sum + l[source], 0);
    const loads = {
      held: total(after, 'held') - total(before, 'held'),
      stale: total(after, 'stale') - total(before, 'stale'),
      none: total(after, 'none') - total(before, 'none'),
    };
    return { stepsPerSec: Math.round((run.units / run.ms) * 1000), loads };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop(5_000)));
    await ctx.close();
  }
}

/** The apps beside the Worker in a whole stack, whose CPU a step's cost includes. */
const STACK_APPS = ['api', 'watcher', 'notifier'] as const;

/**
 * The same noop tasks with the whole stack running (the API, the Watcher verifying each task and
 * the notifier reading the shard's events, beside the given Worker), to `completed`: what a step
 * costs all four apps and Redis. After an untimed warm-up with the other apps up, once the tasks
 * the earlier rounds left in `verifying` are verified too.
 */
export async function stackRun(
  ctx: BenchContext,
  dist: string,
  worker: AppProcess,
  steps: number,
  earlierRounds: number[],
): Promise<Run & { othersCpuMs: Record<string, number> }> {
  const apps = await Promise.all(STACK_APPS.map((app) => startApp(dist, app, ctx.env())));
  try {
    const others = Object.fromEntries(STACK_APPS.map((app, i) => [app, apps[i]]));
    const end = { status: 'completed', others } as const;
    await vigilRun(ctx, worker, -2, Math.min(steps, 28), [], end);
    const leftOver = earlierRounds.map((round) =>
      ctx.keys.tenantStatusIndex(0, `bench-r${round}`, 'verifying'),
    );
    const deadline = Date.now() + 60_000;
    for (const index of leftOver) {
      while ((await ctx.redis.zcard(index)) > 0) {
        if (Date.now() > deadline) throw new Error('stack run: earlier tasks not verified within 60 s');
        await sleep(100);
      }
    }
    return await vigilRun(ctx, worker, -3, steps, [], end);
  } finally {
    await Promise.all(apps.map((app) => app.stop(5_000)));
  }
}
