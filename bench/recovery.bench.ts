import { ControlSignals, TaskRepository, type TaskLifecycle } from '@vigil/tasks';
import type { AppProcess } from '@vigil/testing';
import { BenchContext } from './lib/context';
import { startApp } from './lib/processes';
import type { Bench, BenchResults } from './lib/result';
import { percentile, round, sleep } from './lib/stats';
import { benchLifecycle, noopTask, sliceQueue } from './lib/tasks';

const TIMINGS = { HEARTBEAT_INTERVAL_MS: '200', STALE_AFTER_MS: '2000', WATCHER_INTERVAL_MS: '250' };
const BOUND_MS = Number(TIMINGS.STALE_AFTER_MS) + Number(TIMINGS.WATCHER_INTERVAL_MS);
const POLL_MS = 10;
const SPREAD_MS = 1000;

type Mode = 'crashed' | 'hung';

interface Trial {
  id: string;
  worker: AppProcess;
  killAt: number;
  killedAt?: number;
  latencyMs?: number;
}

class RecoveryRig {
  readonly tasks: TaskRepository;
  private readonly lifecycle: TaskLifecycle;
  readonly signals: ControlSignals;
  private readonly queue;
  private created = 0;

  constructor(
    readonly ctx: BenchContext,
    private readonly dist: string,
  ) {
    this.tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
    this.lifecycle = benchLifecycle(ctx.redis, ctx.keys, ctx.config);
    this.signals = new ControlSignals(ctx.redis, ctx.keys);
    this.queue = sliceQueue(ctx);
  }

  env(extra: Record<string, string> = {}) {
    return this.ctx.env({ ...TIMINGS, WORKER_CONCURRENCY: '1', SLICE_MAX_STEPS: '10000', ...extra });
  }

  startWorkers(count: number): Promise<AppProcess[]> {
    return Promise.all(Array.from({ length: count }, () => startApp(this.dist, 'worker', this.env())));
  }

  startWatcher(): Promise<AppProcess> {
    return startApp(this.dist, 'watcher', this.env());
  }

  /** One long noop task per worker (concurrency 1 each), all running, mapped to their process. */
  async occupy(workers: AppProcess[]): Promise<{ id: string; worker: AppProcess }[]> {
    const ids = workers.map(() => `rec-${this.created++}`);
    for (const id of ids) {
      await this.tasks.create(id, noopTask(10_000, 20));
      await this.queue.slices.publish({ taskId: id, attempt: 1, slice: 1, reason: 'created' });
    }
    const deadline = Date.now() + 60_000;
    for (;;) {
      const records = await Promise.all(ids.map((id) => this.tasks.get(id)));
      const ready = records.every(
        (t) => t?.status === 'running' && (t.completedUnits ?? 0) >= 3 && t.workerId,
      );
      if (ready) {
        const registry = await this.ctx.redis.hgetall(this.ctx.keys.workerRegistry());
        return records.map((task) => {
          const pid = (JSON.parse(registry[task!.workerId!] ?? '{}') as { pid?: number }).pid;
          const worker = workers.find((w) => w.child.pid === pid);
          if (!worker) throw new Error(`task ${task!.id} runs on an unknown worker ${task!.workerId}`);
          return { id: task!.id, worker };
        });
      }
      if (Date.now() > deadline)
        throw new Error(`tasks not all running: ${records.map((t) => t?.status).join(',')}`);
      await sleep(50);
    }
  }

  /**
   * Kills (SIGKILL) or freezes (SIGSTOP) each task's worker at a random moment within SPREAD_MS,
   * and polls every POLL_MS until each task is resumed: attempt bumped, status queued or running.
   */
  async measure(mode: Mode, occupied: { id: string; worker: AppProcess }[]): Promise<Trial[]> {
    const start = Date.now() + 100;
    const trials: Trial[] = occupied.map((o) => ({ ...o, killAt: start + Math.random() * SPREAD_MS }));
    const timeout = start + SPREAD_MS + BOUND_MS * 10;
    while (trials.some((t) => t.latencyMs === undefined)) {
      for (const trial of trials) {
        if (trial.killedAt === undefined && Date.now() >= trial.killAt) {
          trial.killedAt = Date.now();
          trial.worker.signal(mode === 'crashed' ? 'SIGKILL' : 'SIGSTOP');
        }
      }
      const pending = trials.filter((t) => t.killedAt !== undefined && t.latencyMs === undefined);
      if (pending.length > 0) {
        const pipeline = this.ctx.redis.pipeline();
        for (const t of pending) pipeline.hmget(this.ctx.keys.task(t.id), 'status', 'attempt');
        const replies = (await pipeline.exec()) ?? [];
        const now = Date.now();
        pending.forEach((trial, i) => {
          const [status, attempt] = replies[i][1] as [string, string];
          if (Number(attempt) >= 2 && (status === 'queued' || status === 'running'))
            trial.latencyMs = now - trial.killedAt!;
        });
      }
      if (Date.now() > timeout) throw new Error(`${mode}: tasks not resumed within ${timeout - start} ms`);
      await sleep(POLL_MS);
    }
    return trials;
  }

  /** Stops the measured tasks so their next-attempt jobs are skipped. */
  async cancel(trials: Trial[]): Promise<string[]> {
    const reasons: string[] = [];
    for (const trial of trials) {
      const task = await this.tasks.get(trial.id);
      reasons.push(task?.retryHistory[0]?.reason ?? 'none');
      if (task) await this.lifecycle.stop(task).catch(() => undefined);
      await this.signals.publish({ taskId: trial.id, action: 'stop' });
    }
    return reasons;
  }

  close() {
    return this.queue.close();
  }
}

function summarize(mode: Mode, latencies: number[], reasons: string[]): BenchResults {
  const counts = reasons.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r]: (acc[r] ?? 0) + 1 }), {});
  const how =
    mode === 'crashed'
      ? 'SIGKILL of the worker process running the task (dead-worker detection: its named Redis connection vanishes)'
      : 'SIGSTOP of the worker process running the task (a hang: found by heartbeat staleness only)';
  const out: BenchResults = {};
  for (const p of [50, 99]) {
    out[`recovery.${mode}_p${p}`] = {
      value: round(percentile(latencies, p) / BOUND_MS),
      unit: `fraction of STALE_AFTER_MS + WATCHER_INTERVAL_MS (${BOUND_MS} ms)`,
      target: mode === 'crashed' ? '≪ 1' : '≈ 1',
      note:
        `p${p} (nearest rank) of ${latencies.length} trials: ${how}, at a random moment within ${SPREAD_MS} ms, to the task ` +
        `resumed (attempt + 1, status queued/running), polled every ${POLL_MS} ms. Real worker + watcher processes from ` +
        `.dist-bench, HEARTBEAT_INTERVAL_MS ${TIMINGS.HEARTBEAT_INTERVAL_MS}, STALE_AFTER_MS ${TIMINGS.STALE_AFTER_MS}, ` +
        `WATCHER_INTERVAL_MS ${TIMINGS.WATCHER_INTERVAL_MS}; noop task with 20 ms steps.`,
      details: {
        latencyMs: round(percentile(latencies, p)),
        minMs: Math.min(...latencies),
        maxMs: Math.max(...latencies),
        failureReasons: counts,
      },
    };
  }
  return out;
}

/**
 * Issue 4: death-to-resume latency for crashed (SIGKILL) and hung (SIGSTOP) workers, as a fraction
 * of the configured bound. Each round gives every worker (concurrency 1) one long noop task, then
 * kills or freezes the workers at staggered random moments; frozen workers are thawed and reused.
 */
export const runRecoveryBench: Bench = async ({ quick, distDir, log }) => {
  const dist = await distDir();
  const ctx = new BenchContext('recovery');
  const rig = new RecoveryRig(ctx, dist);
  const trials = quick ? 5 : 20;
  const poolSize = quick ? 5 : 10;
  const all: AppProcess[] = [];
  try {
    const [watcher, workers] = await Promise.all([rig.startWatcher(), rig.startWorkers(poolSize)]);
    all.push(watcher, ...workers);
    let pool = workers;
    const results: BenchResults = {};
    for (const mode of ['hung', 'crashed'] as const) {
      const latencies: number[] = [];
      const reasons: string[] = [];
      while (latencies.length < trials) {
        const occupied = await rig.occupy(pool.slice(0, trials - latencies.length));
        const measured = await rig.measure(mode, occupied);
        latencies.push(...measured.map((t) => t.latencyMs!));
        reasons.push(...(await rig.cancel(measured)));
        log(`recovery: ${mode} ${measured.map((t) => t.latencyMs).join(', ')} ms`);
        if (mode === 'hung') for (const t of measured) t.worker.signal('SIGCONT');
        else if (latencies.length < trials) {
          pool = await rig.startWorkers(poolSize);
          all.push(...pool);
        }
      }
      Object.assign(results, summarize(mode, latencies, reasons));
    }
    return results;
  } finally {
    await Promise.all(all.map((p) => p.stop(3_000)));
    await rig.close();
    await ctx.close();
  }
};
