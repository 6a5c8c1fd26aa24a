import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { bullConnection, SLICE_JOB_NAME, SLICE_JOB_OPTIONS, sliceJobId } from '@vigil/queue';
import { TaskRepository } from '@vigil/tasks';
import {
  BenchTarget,
  commandsPerMaster,
  startClusterRedis,
  startSingleRedis,
  TargetContext,
} from './cluster-targets';
import { CommandCounts, scaleCounts, totalCalls } from './lib/commandstats';
import { startApp } from './lib/processes';
import type { Bench, BenchResults } from './lib/result';
import { median, round, sleep } from './lib/stats';
import { noopTask } from './lib/tasks';

const SHARDS = 6;
/** Shards per master docs/operations.md, "Past one machine", recommends: the spread measured with as many. */
const MANY_SHARDS = 48;

interface ClusterRun {
  stepsPerSec: number;
  commandsPerStep: number;
  perStep: CommandCounts;
  /** Each master's share of the run's commands, largest first. */
  masterShares: number[];
  /** Per master: its port, its share of the commands, the shards it holds and how many tasks they had. */
  masters: { port: number; share: number; shards: number[]; tasks: number }[];
}

/**
 * Issue 15: steps/s of scripted noop tasks through one worker process on a 3-master Redis Cluster
 * (3 replicas, SHARDS=6) vs on a single redis-server, both private to the bench and started in the
 * same run; Redis commands per step on each (INFO commandstats, summed over the masters); and how
 * evenly the cluster's masters share the commands.
 */
export const runClusterBench: Bench = async ({ quick, distDir, log }) => {
  const dist = await distDir();
  const tasks = quick ? 60 : 150;
  const steps = quick ? 40 : 100;
  const rounds = quick ? 1 : 2;
  const targets: BenchTarget[] = [];
  try {
    targets.push(await startSingleRedis(), await startClusterRedis());
    const runs: Record<'single' | 'cluster', ClusterRun[]> = { single: [], cluster: [] };
    for (let round_ = 0; round_ < rounds; round_++) {
      const order = round_ % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const run = await measureTarget(dist, target, SHARDS, tasks, steps);
        runs[target.name].push(run);
        log(
          `cluster: ${target.name} ${round(run.stepsPerSec)} steps/s, ${run.commandsPerStep} commands/step`,
        );
      }
    }
    const cluster = targets[1];
    const many = await measureTarget(dist, cluster, MANY_SHARDS, tasks, steps);
    log(
      `cluster: SHARDS=${MANY_SHARDS} ${round(many.stepsPerSec)} steps/s, shares ${many.masterShares.map((s) => round(s))}`,
    );
    const rate = (name: 'single' | 'cluster') => median(runs[name].map((run) => run.stepsPerSec));
    const last = (name: 'single' | 'cluster') => runs[name][runs[name].length - 1];
    const shares = last('cluster').masterShares;
    const setup =
      `${tasks} noop tasks × ${steps} steps (scripted model) through one worker process from .dist-bench ` +
      `(WORKER_CONCURRENCY ${tasks}, SHARDS ${SHARDS}), timed from publishing the first slices to all tasks in ` +
      `verifying; a private single redis-server vs a private local cluster of 3 masters and 3 replicas ` +
      `(libs/testing LocalRedisCluster), same binary, no persistence; ${rounds} round(s), order alternating.`;
    const results: BenchResults = {
      'cluster.throughput_ratio': {
        value: round(rate('cluster') / rate('single')),
        unit: 'ratio (steps/s on the cluster ÷ steps/s on one Redis)',
        note: `${setup} Median of the rounds. On one machine the masters share its cores with the worker.`,
        details: { clusterStepsPerSec: round(rate('cluster')), singleStepsPerSec: round(rate('single')) },
      },
      'cluster.commands_per_step': {
        value: last('cluster').commandsPerStep,
        unit: 'Redis commands per step on the cluster (summed over masters)',
        target: `= single Redis (${last('single').commandsPerStep})`,
        note:
          `${setup} Last round, whole run ÷ steps, BullMQ's commands and slice hand-offs included; the Cluster ` +
          "clients' upkeep (CLUSTER SLOTS/INFO, CLIENT LIST, INFO) is left out of both.",
        details: {
          single: last('single').commandsPerStep,
          clusterByCommand: last('cluster').perStep,
          singleByCommand: last('single').perStep,
        },
      },
      'cluster.master_spread': {
        value: round(shares[0] / shares[shares.length - 1]),
        unit: "ratio (busiest master's commands ÷ idlest master's)",
        target: 'close to 1',
        note:
          `${setup} Last cluster round: each master's share of the run's commands, with the shards it holds and ` +
          `their tasks. A shard is one hash slot; with redis-cli's even slot ranges the ${SHARDS} shards fall 4/1/1 ` +
          `on the 3 masters, so the split is uneven by construction; with SHARDS=${MANY_SHARDS} (one more run) ` +
          'each master holds about a third of the shards and the rest is how the tasks fell.',
        details: {
          masters: last('cluster').masters,
          [`shards${MANY_SHARDS}`]: {
            spread: round(many.masterShares[0] / many.masterShares[many.masterShares.length - 1]),
            masters: many.masters,
            stepsPerSec: round(many.stepsPerSec),
            commandsPerStep: many.commandsPerStep,
          },
        },
      },
    };
    return results;
  } finally {
    for (const target of targets) await target.stop();
  }
};

async function measureTarget(
  dist: string,
  target: BenchTarget,
  shards: number,
  tasks: number,
  steps: number,
): Promise<ClusterRun> {
  const ctx = new TargetContext(target, shards);
  const worker = await startApp(dist, 'worker', ctx.env({ WORKER_CONCURRENCY: String(tasks) }));
  const connection = bullConnection(ctx.config);
  const queues = ctx.keys
    .allShards()
    .map((shard) => new Queue(ctx.keys.sliceQueueName(shard), { connection, prefix: ctx.prefix }));
  const repo = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  try {
    // Warm-up, untimed: the worker compiles its hot paths before the measured run.
    await runTasks(ctx, repo, queues, 'warm', Math.min(tasks, 20), 10);
    const before = await ctx.commandStats();
    const started = Date.now();
    const ids = await runTasks(ctx, repo, queues, 'timed', tasks, steps);
    const ms = Date.now() - started;
    const perMaster = commandsPerMaster(before, await ctx.commandStats());
    const totals = [...perMaster.values()].map(totalCalls);
    const all = totals.reduce((sum, n) => sum + n, 0);
    const merged: CommandCounts = {};
    for (const counts of perMaster.values())
      for (const [name, calls] of Object.entries(counts)) merged[name] = (merged[name] ?? 0) + calls;
    const stepCount = tasks * steps;
    return {
      stepsPerSec: (stepCount / ms) * 1000,
      commandsPerStep: round(all / stepCount),
      perStep: scaleCounts(merged, stepCount),
      masterShares: totals.map((n) => n / all).sort((a, b) => b - a),
      masters: [...(await ctx.shardsByMaster())].map(([port, shards]) => ({
        port,
        share: round(totalCalls(perMaster.get(port) ?? {}) / all),
        shards,
        tasks: ids.filter((id) => shards.includes(ctx.keys.shardOf(id))).length,
      })),
    };
  } finally {
    await worker.stop();
    await Promise.all(queues.map((queue) => queue.close()));
    if (typeof connection === 'object' && 'quit' in connection) await connection.quit();
    await ctx.close();
  }
}

/** Creates `count` noop tasks, publishes their first slices and waits until all are verifying. */
async function runTasks(
  ctx: TargetContext,
  repo: TaskRepository,
  queues: Queue[],
  label: string,
  count: number,
  steps: number,
): Promise<string[]> {
  const tenantId = `bench-${label}`;
  // Random ids, as the API makes them: ids that differ only in a counter share FNV-1a's low bits and
  // would crowd a few shards.
  const ids = Array.from({ length: count }, () => `tsk_${randomBytes(12).toString('hex')}`);
  await Promise.all(ids.map((id) => repo.create(id, { ...noopTask(steps), tenantId })));
  await Promise.all(
    ids.map((taskId) => {
      const job = { taskId, attempt: 1, slice: 1, reason: 'created' as const };
      return queues[ctx.keys.shardOf(taskId)].add(SLICE_JOB_NAME, job, {
        ...SLICE_JOB_OPTIONS,
        jobId: sliceJobId(job),
      });
    }),
  );
  const deadline = Date.now() + 300_000;
  for (;;) {
    const counts = await Promise.all(
      ctx.keys
        .allShards()
        .map((shard) => ctx.redis.zcard(ctx.keys.tenantStatusIndex(shard, tenantId, 'verifying'))),
    );
    if (counts.reduce((sum, n) => sum + n, 0) >= count) return ids;
    if (Date.now() > deadline)
      throw new Error(`${ctx.target.name}: tasks did not all reach verifying in 300 s`);
    await sleep(20);
  }
}
