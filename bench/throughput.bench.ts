import { join } from 'node:path';
import type { AppProcess } from '@vigil/testing';
import { scaleCounts } from './lib/commandstats';
import { BenchContext } from './lib/context';
import { LineChild } from './lib/line-child';
import { startApp, vmRssKiB } from './lib/processes';
import type { Bench, BenchResults } from './lib/result';
import { median, round, sleep } from './lib/stats';
import { holdRss, rawRun, Run, stackRun, TASKS, twoWorkerRun, vigilRun } from './lib/throughput-runs';
/**
 * Issue 3: steps/s of 200 concurrent scripted noop tasks through a real worker process (its
 * production build, WORKER_CONCURRENCY=200) vs no-op jobs/s through a bare BullMQ worker with the
 * same concurrency, side by side; and the worker's RSS per concurrent task.
 */
export const runThroughputBench: Bench = async ({ quick, distDir, log }) => {
  const dist = await distDir();
  const ctx = new BenchContext('throughput');
  // BENCH_STEPS_PER_TASK overrides the task length (the ratio falls as tasks grow: see the report).
  const steps = Number(process.env.BENCH_STEPS_PER_TASK) || (quick ? 140 : 280);
  const rounds = quick ? 1 : 2;
  const rawQueue = 'raw{s0}';
  let worker: AppProcess | undefined;
  let raw: LineChild | undefined;
  try {
    const concurrency = String(TASKS);
    [worker, raw] = await Promise.all([
      startApp(dist, 'worker', ctx.env({ WORKER_CONCURRENCY: concurrency })),
      (async () => {
        const child = new LineChild(join(__dirname, 'lib/raw-bullmq-worker.ts'), {
          ...ctx.env(),
          RAW_QUEUE: rawQueue,
          CONCURRENCY: concurrency,
        });
        await child.waitFor('ready', 60_000);
        return child;
      })(),
    ]);
    await sleep(1000);
    const idle: number[] = [];
    for (let i = 0; i < 5; i++, await sleep(100)) idle.push(vmRssKiB(worker.child.pid!));
    const idleKiB = median(idle);
    // Memory first, on a fresh heap; then throughput.
    const held = await holdRss(ctx, worker, quick ? 1.5 : 3);
    const heldKiB = median(held);
    await sleep(500);

    // Warm-up, not timed: both consumers compile their hot paths before the measured rounds, so a
    // short (quick) run compares steady states rather than whichever process the JIT reached first.
    const warmSteps = Math.min(steps, 28);
    await vigilRun(ctx, worker, -1, warmSteps, []);
    await rawRun(ctx, raw, rawQueue, -1, TASKS * warmSteps);
    log('throughput: warmed up');

    const ratios: number[] = [];
    const vigilRates: number[] = [];
    const rawRates: number[] = [];
    const rss: number[] = [];
    const perUnit: Record<
      string,
      {
        commands: number;
        byCommand: Record<string, number>;
        redisReads: number;
        processCpuMs: number;
        mainThreadCpuMs: number;
        redisCpuMs: number;
      }
    > = {};
    let toolStepsPerTask = 0;
    let loads = { held: 0, stale: 0, none: 0 };
    for (let round_ = 0; round_ < rounds; round_++) {
      const order = round_ % 2 === 0 ? ['raw', 'vigil'] : ['vigil', 'raw'];
      const runs: Record<string, Run> = {};
      for (const which of order) {
        if (which === 'vigil') {
          const run = await vigilRun(ctx, worker, round_, steps, rss);
          toolStepsPerTask = run.toolSteps / TASKS;
          loads = run.contextLoads;
          runs.vigil = run;
        } else runs.raw = await rawRun(ctx, raw, rawQueue, round_, TASKS * steps);
        log(`throughput: ${which} ${runs[which].units} in ${runs[which].ms} ms`);
      }
      const vigilRate = (runs.vigil.units / runs.vigil.ms) * 1000;
      const rawRate = (runs.raw.units / runs.raw.ms) * 1000;
      vigilRates.push(vigilRate);
      rawRates.push(rawRate);
      ratios.push(vigilRate / rawRate);
      for (const which of order) {
        const run = runs[which];
        perUnit[which] = {
          commands: round(run.commands / run.units),
          byCommand: scaleCounts(run.byCommand, run.units),
          redisReads: round(run.redisReads / run.units),
          processCpuMs: round(run.processCpuMs / run.units),
          mainThreadCpuMs: round(run.mainThreadCpuMs / run.units),
          redisCpuMs: round(run.redisCpuMs / run.units),
        };
      }
    }
    const peakKiB = Math.max(...rss);
    // What a step costs the whole stack (the Worker, the Watcher verifying, the notifier reading
    // events, the API) and Redis: the "app CPU + Redis CPU per durable step".
    const stack = await stackRun(
      ctx,
      dist,
      worker,
      steps,
      Array.from({ length: rounds + 1 }, (_, i) => i - 1),
    );
    const stackApps = { worker: stack.processCpuMs, ...stack.othersCpuMs };
    const stackAppsMs = Object.values(stackApps).reduce((sum, ms) => sum + ms, 0);
    log(`throughput: whole stack ${stack.units} steps in ${stack.ms} ms`);
    // Full runs only (two more worker processes: about 5 s).
    const two = quick ? undefined : await twoWorkerRun(dist, steps);
    if (two) log(`throughput: two workers ${two.stepsPerSec} steps/s`);
    const results: BenchResults = {
      'throughput.steps_vs_raw_bullmq_ratio': {
        value: round(median(ratios)),
        unit: 'ratio (noop steps/s ÷ raw BullMQ no-op jobs/s)',
        target: '>= 1.0',
        note:
          `${TASKS} noop tasks × ${steps} steps (stepMs 0, scripted model, SLICE_MAX_STEPS ${ctx.config.sliceMaxSteps}) through ` +
          `one worker process from .dist-bench (WORKER_CONCURRENCY ${TASKS}), timed from publishing the first slices to all ` +
          `${TASKS} tasks in verifying; vs ${TASKS * steps} no-op jobs queued up front and drained by a bare BullMQ Worker ` +
          `process (concurrency ${TASKS}, same worker options); after an untimed warm-up of both, ${rounds} round(s), ` +
          'order alternating, median ratio.',
        details: {
          vigilStepsPerSec: round(median(vigilRates)),
          rawJobsPerSec: round(median(rawRates)),
          toolStepsPerTask: `${toolStepsPerTask} (${steps} noop_step + finish_task)`,
          sliceContextLoads:
            `last round: ${loads.held} slices reused the context the worker held, ${loads.stale} read it because ` +
            `the held one was out of date, ${loads.none} because none was held`,
          perVigilStep: perUnit.vigil,
          perRawJob: perUnit.raw,
          perUnitNote:
            'last round, whole run ÷ units: Redis commands (INFO commandstats, incl. slice hand-offs and BullMQ job ' +
            'handling), socket reads of the Redis server (INFO stats total_reads_processed: commands written ' +
            'together cost one), CPU ms of the consuming process (/proc/<pid>/stat), of its main thread alone (/proc/<pid>/task/<pid>/stat: the JavaScript, which one core bounds) and of the Redis server (INFO cpu)',
        },
      },
      'throughput.stack_cpu_ms_per_step': {
        value: round((stackAppsMs + stack.redisCpuMs) / stack.units),
        unit: 'CPU ms per step: the four apps + Redis',
        note:
          `${TASKS} noop tasks × ${steps} steps through the same worker process with the API, a Watcher and the ` +
          'notifier running beside it (from .dist-bench, default timings), from publishing the first slices to all ' +
          'tasks completed (verified by the Watcher); after an untimed warm-up of the whole stack. CPU of each ' +
          'process from /proc/<pid>/stat and of the Redis server (INFO cpu), over the run, ÷ steps.',
        details: {
          appsCpuMs: round(stackAppsMs / stack.units),
          byApp: Object.fromEntries(
            Object.entries(stackApps).map(([app, ms]) => [app, round(ms / stack.units)]),
          ),
          workerMainThreadCpuMs: round(stack.mainThreadCpuMs / stack.units),
          redisCpuMs: round(stack.redisCpuMs / stack.units),
          commands: round(stack.commands / stack.units),
          byCommand: scaleCounts(stack.byCommand, stack.units),
          stepsPerSec: round((stack.units / stack.ms) * 1000),
        },
      },
      'throughput.worker_rss_per_task': {
        value: round((heldKiB - idleKiB) / TASKS),
        unit: 'KiB/concurrent task',
        note:
          `(median VmRSS of the worker while ${TASKS} noop tasks with 100 ms steps all run at once − idle VmRSS after boot) ` +
          `÷ ${TASKS}; /proc/<pid>/status every 100 ms. Includes garbage not yet collected, so an upper bound.`,
        details: {
          idleRssKiB: idleKiB,
          heldRssKiB: heldKiB,
          heldSamples: held.length,
          peakRssDuringThroughputKiB: peakKiB,
          peakPerTaskDuringThroughputKiB: round((peakKiB - idleKiB) / TASKS),
        },
      },
    };
    if (two) {
      const starts = two.loads.held + two.loads.stale + two.loads.none;
      results['throughput.two_workers_held_share'] = {
        value: round(two.loads.held / starts),
        unit: 'share of slice starts that reused the context their worker held',
        note:
          `${TASKS} noop tasks × ${steps} steps through two worker processes (WORKER_CONCURRENCY ${TASKS / 2} each) ` +
          'on a prefix of their own, after a warm-up; counts from vigil_slice_context_loads_total. Likely why it ' +
          'is high: BullMQ hands a worker the next waiting job as it completes one, often the slice it just published.',
        details: {
          ...two.loads,
          stepsPerSecWithTwoWorkers: two.stepsPerSec,
          stepsPerSecWithOneWorker: round(median(vigilRates)),
        },
      };
    }
    return results;
  } finally {
    await Promise.all([worker?.stop(5_000), raw?.stop()]);
    await ctx.close();
  }
};
