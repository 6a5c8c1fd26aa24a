import { measureCommands, noiseNote } from './lib/commandstats';
import { BenchContext } from './lib/context';
import type { Bench, BenchResults } from './lib/result';
import { naiveScan, seedRunningTasks } from './lib/seed';
import { median, round, timed } from './lib/stats';
import { bootSupervisor } from './lib/supervisor-app';

const label = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));

/**
 * Issue 4: the Watcher's sweep (SupervisorSweep.tick, booted from the build) with 1k, 10k and 100k
 * healthy running tasks vs a naive scan of every task record (SCAN + HGETALL), in the same run.
 */
export const runSweepBench: Bench = async ({ quick, distDir, log }) => {
  const dist = await distDir();
  const ctx = new BenchContext('sweep', { LOG_LEVEL: 'warn' });
  const { sweep, app } = await bootSupervisor(dist, ctx.config);
  try {
    const sizes = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
    const ticks = quick ? 30 : 100;
    const naiveRuns = 3;
    const perSize: Record<
      string,
      { sweepMs: number; naiveMs: number; sweepCommands: number; naiveCommands: number }
    > = {};
    const results: BenchResults = {};
    let seeded = 0;
    let noisy = false;
    for (const size of sizes) {
      const seed = await timed(() => seedRunningTasks(ctx, seeded, size));
      seeded = size;
      log(`sweep: seeded ${label(size)} tasks (${Math.round(seed.ms)} ms)`);
      for (let i = 0; i < 20; i++) await sweep.tick(); // warm-up (JIT, connections)
      const sweepTimes: number[] = [];
      const naiveTimes: number[] = [];
      // Interleaved so both see the same machine state.
      for (let i = 0; i < Math.max(ticks, naiveRuns); i++) {
        if (i < ticks) {
          const { ms, result } = await timed(() => sweep.tick());
          if (result.inspected !== 0) throw new Error(`sweep inspected ${result.inspected} healthy tasks`);
          sweepTimes.push(ms);
        }
        if (i < naiveRuns) {
          const { ms, result } = await timed(() => naiveScan(ctx));
          if (result.tasks !== size || result.stale !== 0)
            throw new Error(`naive scan saw ${JSON.stringify(result)}`);
          naiveTimes.push(ms);
        }
      }
      const sweepCommands = await measureCommands(ctx.stats, 1, 30, () => sweep.tick());
      const naiveCommands = await measureCommands(ctx.stats, 1, 2, () => naiveScan(ctx));
      noisy ||= sweepCommands.agreeingWindows < 2;
      const entry = {
        sweepMs: round(median(sweepTimes)),
        naiveMs: round(median(naiveTimes)),
        sweepCommands: sweepCommands.totalPerOp,
        naiveCommands: naiveCommands.totalPerOp,
      };
      perSize[label(size)] = entry;
      results[`sweep.naive_vs_sweep_ratio_${label(size)}`] = {
        value: round(entry.naiveMs / entry.sweepMs),
        unit: 'ratio (naive scan time ÷ sweep time)',
        note:
          `${label(size)} healthy running tasks (heartbeat deadline 1 h ahead); median of ${ticks} SupervisorSweep.tick() ` +
          `vs median of ${naiveRuns} naive scans (SCAN COUNT 1000 TYPE hash + pipelined HGETALL per page), interleaved.`,
        details: { sweepMs: entry.sweepMs, naiveMs: entry.naiveMs },
      };
      log(`sweep: ${label(size)} → sweep ${entry.sweepMs} ms, naive ${entry.naiveMs} ms`);
    }
    const first = perSize[label(sizes[0])];
    const last = perSize[label(sizes[sizes.length - 1])];
    results['sweep.time_growth'] = {
      value: round(last.sweepMs / first.sweepMs),
      unit: `ratio (sweep time at ${label(sizes[sizes.length - 1])} ÷ at ${label(sizes[0])} tasks)`,
      target: '≈ 1 (flat)',
      note: `Median sweep times from the rows above; the naive scan grows ${round(last.naiveMs / first.naiveMs)}× over the same range.`,
      details: Object.fromEntries(
        Object.entries(perSize).map(([n, e]) => [n, { sweepMs: e.sweepMs, naiveMs: e.naiveMs }]),
      ),
    };
    results['sweep.redis_commands'] = {
      value: last.sweepCommands,
      unit: `Redis commands/sweep at ${label(sizes[sizes.length - 1])} tasks`,
      target: 'same at every size',
      note:
        'INFO commandstats delta per tick (cleanest of 30 one-tick windows); the naive scan for comparison (2 windows). ' +
        'Sweep: HKEYS of the worker registry + one pipeline of ZRANGEBYSCORE on the expiry, verifying and deadline indexes.' +
        (noisy ? noiseNote({ agreeingWindows: 1 }) : ''),
      details: Object.fromEntries(
        Object.entries(perSize).map(([n, e]) => [
          n,
          { sweepCommands: e.sweepCommands, naiveScanCommands: e.naiveCommands },
        ]),
      ),
    };
    return results;
  } finally {
    await app.close();
    await ctx.close();
  }
};
