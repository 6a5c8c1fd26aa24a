import { TaskRepository } from '@vigil/tasks';
import { measureCommands, noiseNote } from './lib/commandstats';
import { BenchContext } from './lib/context';
import type { Bench, BenchResults } from './lib/result';
import { RoundTripCounter } from './lib/round-trips';
import { median, round, timed } from './lib/stats';
import { BENCH_CLAIM, benchLifecycle, Flipper, noopTask } from './lib/tasks';

/** Runs `total` operations with `inFlight` of them outstanding at a time; returns elapsed ms. */
async function drive(
  total: number,
  inFlight: number,
  op: (lane: number) => Promise<unknown>,
): Promise<number> {
  let issued = 0;
  const { ms } = await timed(() =>
    Promise.all(
      Array.from({ length: inFlight }, async (_, lane) => {
        while (issued < total) {
          issued++;
          await op(lane);
        }
      }),
    ),
  );
  return ms;
}

/**
 * Issue 2: transitions/s through the Lua transitionTask vs plain HSET/s on the same connection,
 * side by side in one run (alternating blocks, median of the per-round ratios), plus Redis
 * commands and round trips per transition.
 */
export const runTransitionsBench: Bench = async ({ quick, log }) => {
  const ctx = new BenchContext('transitions');
  try {
    const connection = ctx.connect();
    const counter = new RoundTripCounter(connection);
    const repo = new TaskRepository(connection, ctx.keys, ctx.config);
    const lifecycle = benchLifecycle(connection, ctx.keys, ctx.config);
    const scratch = `${ctx.keys.shardBase(0)}:scratch`;
    const lanes = 64;
    const flippers: Flipper[] = [];
    for (let lane = 0; lane < lanes; lane++) {
      const { task } = await repo.create(`tr-${lane}`, noopTask(1));
      await lifecycle.claimSlice(task, { attempt: 1, ...BENCH_CLAIM });
      flippers.push(new Flipper(lifecycle, task));
    }
    const lua = (lane: number) => flippers[lane].flip();
    const hset = (lane: number) => connection.hset(scratch, `f${lane}`, lane);
    await drive(400, 1, lua); // warm-up: scripts loaded (EVALSHA cached), JIT warm
    await drive(400, 1, hset);

    const results: BenchResults = {};
    const rounds = quick ? 3 : 7;
    for (const inFlight of [1, lanes]) {
      const ops = (quick ? 2000 : 5000) * (inFlight === 1 ? 1 : 2);
      const ratios: number[] = [];
      const luaRates: number[] = [];
      const hsetRates: number[] = [];
      for (let round_ = 0; round_ < rounds; round_++) {
        const order = round_ % 2 === 0 ? ['hset', 'lua'] : ['lua', 'hset'];
        const ms: Record<string, number> = {};
        for (const which of order) ms[which] = await drive(ops, inFlight, which === 'lua' ? lua : hset);
        ratios.push(ms.hset / ms.lua);
        luaRates.push((ops / ms.lua) * 1000);
        hsetRates.push((ops / ms.hset) * 1000);
      }
      const key =
        inFlight === 1
          ? 'transitions.ratio_vs_hset_sequential'
          : `transitions.ratio_vs_hset_${inFlight}_in_flight`;
      results[key] = {
        value: round(median(ratios)),
        unit: 'ratio (transitionTask/s ÷ HSET/s)',
        note:
          `${rounds} rounds of ${ops} transitionTask calls (running⇄queued, attempt-fenced, from-checked) and ${ops} HSETs ` +
          `on one connection, ${inFlight} in flight, blocks alternating order; median of per-round ratios. ` +
          (inFlight === 1
            ? 'Latency-bound: mostly one network round trip each.'
            : 'Throughput-bound: shows the script’s server cost.'),
        details: {
          transitionsPerSec: round(median(luaRates)),
          hsetPerSec: round(median(hsetRates)),
          ratioMin: round(Math.min(...ratios)),
          ratioMax: round(Math.max(...ratios)),
          inFlight,
        },
      };
      log(`transitions: ${inFlight} in flight → ratio ${round(median(ratios))}`);
    }

    const stats = await measureCommands(ctx.stats, 2, 30, () => flippers[0].flip());
    counter.reset();
    for (let i = 0; i < 20; i++) await flippers[0].flip();
    results['transitions.redis_commands'] = {
      value: stats.totalPerOp,
      unit: 'Redis commands/transition',
      note:
        'INFO commandstats delta per transition (running⇄queued pairs), cleanest of 30 windows; counts the EVALSHA ' +
        'and every command the script runs (HMGET, HSET, ZADD/ZREM of indexes, XADD event).' +
        noiseNote(stats),
      details: { perTransition: stats.perOp, agreeingWindows: `${stats.agreeingWindows}/${stats.windows}` },
    };
    results['transitions.round_trips'] = {
      value: counter.roundTrips / 20,
      unit: 'round trips/transition',
      target: '1',
      note: 'Client-side count of requests the ioredis connection sent over 20 transitions (a pipeline counts once).',
      details: { scriptCallsPerTransitionFromCommandstats: stats.scriptCallsPerOp },
    };
    return results;
  } finally {
    await ctx.close();
  }
};
