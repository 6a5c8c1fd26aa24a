import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { parseCli } from './lib/cli';
import { ensureBenchBuild, ROOT } from './lib/dist';
import { machineFacts } from './lib/machine';
import { killLeftovers } from './lib/processes';
import type { Bench, BenchResults } from './lib/result';
import { renderResults } from './lib/table';

/** Every benchmark the issues name, in run order; each file owns one. */
const BENCHES: Record<string, () => Promise<Bench>> = {
  transitions: async () => (await import('./transitions.bench')).runTransitionsBench,
  steps: async () => (await import('./steps.bench')).runStepsBench,
  throughput: async () => (await import('./throughput.bench')).runThroughputBench,
  sweep: async () => (await import('./sweep.bench')).runSweepBench,
  recovery: async () => (await import('./recovery.bench')).runRecoveryBench,
  latency: async () => (await import('./latency.bench')).runLatencyBench,
  notifier: async () => (await import('./notifier.bench')).runNotifierBench,
  prompts: async () => (await import('./prompts.bench')).runPromptsBench,
  cluster: async () => (await import('./cluster.bench')).runClusterBench,
  'mcp-overhead': async () => (await import('./mcp-overhead.bench')).runMcpOverheadBench,
  'mission-steps': async () => (await import('./mission-steps.bench')).runMissionStepsBench,
  conversations: async () => (await import('./conversations.bench')).runConversationsBench,
  children: async () => (await import('./children.bench')).runChildrenBench,
  memory: async () => (await import('./memory.bench')).runMemoryBench,
  retention: async () => (await import('./retention.bench')).runRetentionBench,
  tracing: async () => (await import('./tracing.bench')).runTracingBench,
  screenshots: async () => (await import('./screenshots.bench')).runScreenshotsBench,
};

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function main(): Promise<number> {
  const cli = parseCli(process.argv.slice(2));
  const unknown = cli.only.filter((name) => !(name in BENCHES));
  if (unknown.length > 0) {
    log(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`);
    return 2;
  }
  const selected =
    cli.only.length > 0 ? Object.keys(BENCHES).filter((n) => cli.only.includes(n)) : Object.keys(BENCHES);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const machine = await machineFacts(redis, redisUrl).finally(() => redis.quit());
  let dist: string | undefined;
  const distDir = async () => (dist ??= ensureBenchBuild(log));

  const runAt = new Date().toISOString();
  const started = Date.now();
  const results: BenchResults = {};
  const errors: Record<string, string> = {};
  const seconds: Record<string, number> = {};
  for (const name of selected) {
    const t0 = Date.now();
    log(`${name}: running${cli.quick ? ' (quick)' : ''}`);
    try {
      const bench = await BENCHES[name]();
      Object.assign(results, await bench({ quick: cli.quick, distDir, log }));
    } catch (error) {
      errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
      results[name] = { value: null, unit: '', note: `crashed: ${String(error).split('\n')[0]}` };
      log(`${name}: CRASHED\n${errors[name]}`);
      killLeftovers();
    }
    seconds[name] = Number(((Date.now() - t0) / 1000).toFixed(1));
    log(`${name}: done in ${seconds[name]} s`);
  }

  const report = {
    machine,
    runAt,
    quick: cli.quick,
    only: cli.only.length > 0 ? selected : undefined,
    wallSeconds: { total: Number(((Date.now() - started) / 1000).toFixed(1)), ...seconds },
    results,
    ...(Object.keys(errors).length > 0 ? { errors } : {}),
  };
  const out = cli.out ? resolve(process.cwd(), cli.out) : join(ROOT, 'bench/results.json');
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n\n`);
  const facts = `${machine.cpuModel} × ${machine.cpuCount}, ${machine.memoryGiB} GiB, node ${machine.node}, redis ${machine.redis}`;
  process.stdout.write(`Vigil benchmarks${cli.quick ? ' (quick)' : ''} — ${runAt} — ${facts}\n\n`);
  process.stdout.write(`${renderResults(results)}\n\nwritten to ${out}\n`);
  return Object.keys(errors).length > 0 ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killLeftovers();
    process.exit(130);
  });
}
process.on('exit', killLeftovers);

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`bench runner failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    killLeftovers();
    process.exit(1);
  },
);
