import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { TASK_STATUSES, TERMINAL_STATUSES } from '@vigil/tasks';
import { freePort, HttpClient, type AppProcess } from '@vigil/testing';
import { archiveNow } from './lib/archive-now';
import { addCost, costSince, markPhase, type PhaseCost } from './lib/phase-costs';
import { BenchContext } from './lib/context';
import { startApp } from './lib/processes';
import type { Bench, BenchResults } from './lib/result';
import { round, sleep } from './lib/stats';

const TENANT = 'soak';
const API_KEY = 'soak-bench-key-0001';
const RETENTION_MS = 2_000;
const POSTS_IN_FLIGHT = 32;
/** The paired phases' retention: short, so a phase's own tasks are archived while it runs. */
const PAIR_RETENTION_MS = 500;

/** A redis-server of the bench's own, so `used_memory` is this bench's alone (nothing else shares it). */
async function privateRedis(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // Refused until the server listens: each attempt's failure is answered by the loop below.
  probe.on('error', () => undefined);
  for (let i = 0; ; i++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (error) {
      if (i > 100) throw new Error(`private redis-server on ${port} did not start: ${String(error)}`);
      probe.disconnect();
      await sleep(50);
    }
  }
  probe.disconnect();
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** MEMORY USAGE of every key, summed by its shape (ids and numbers blanked): what holds the bytes. */
async function bytesByShape(redis: Redis): Promise<Record<string, number>> {
  const shapes: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    for (const key of keys) {
      const shape = key.replace(/tsk_[0-9a-f]+/g, '<task>').replace(/:\d+/g, ':<n>');
      shapes[shape] = (shapes[shape] ?? 0) + ((await redis.memory('USAGE', key)) ?? 0);
    }
    cursor = next;
  } while (cursor !== '0');
  return shapes;
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
}

/**
 * Issue 22: a soak of noop tasks through the whole stack (API, Worker, Watcher, notifier, a private
 * Redis) with a short retention: Redis' used_memory once the retention window has passed after
 * N tasks, against what it was before them (after a warm-up that fills the capped streams);
 * tasks/s with retention archiving as they finish ÷ without (paired phases of one run); and the
 * archive's objects/s and bytes per archived task. `--quick`: 500 tasks instead of 20,000,
 * and one round of the paired phases instead of two.
 */
export const runRetentionBench: Bench = async ({ quick, distDir, log }) => {
  const dist = await distDir();
  const redis = await privateRedis();
  const objects = mkdtempSync(join(tmpdir(), 'vigil-soak-'));
  const apps: AppProcess[] = [];
  let watcher: AppProcess | undefined;
  const ctx = new BenchContext('retention', { REDIS_URL: redis.url });
  const soakTasks = quick ? 500 : 20_000;
  const pairTasks = quick ? 200 : 5_000;
  const warmUp = quick ? 150 : 2_000;
  // Quick (CI's check that the bench runs): one round of the three modes, not two.
  const pairs = quick ? 1 : 2;
  try {
    const env = ctx.env({
      REDIS_URL: redis.url,
      API_KEYS: `${TENANT}:${API_KEY}`,
      RATE_LIMIT_PER_MINUTE: '1000000',
      WATCHER_INTERVAL_MS: '200',
      USER_UPDATE_INTERVAL_MS: '600000',
      WORKER_CONCURRENCY: '200',
      // The capped streams hold a fixed amount whatever the task count; small caps make the
      // soak's question (does anything grow with tasks?) readable in a short run.
      EVENT_STREAM_MAXLEN: '1000',
      FINISHED_JOB_RETENTION_MS: String(RETENTION_MS),
      OBJECT_STORE_URL: `file://${objects}`,
    });
    apps.push(
      ...(await Promise.all((['api', 'worker', 'notifier'] as const).map((app) => startApp(dist, app, env)))),
    );
    const port = /ready on port (\d+)/.exec(apps[0].text())![1];
    const api = new HttpClient(`http://127.0.0.1:${port}`, API_KEY);
    const appPids = () =>
      Object.fromEntries([...apps, ...(watcher ? [watcher] : [])].map((app) => [app.name, app.child.pid!]));
    const startWatcher = async (retentionMs: number, busyLagMs?: number) => {
      if (watcher) await watcher.stop(10_000);
      watcher = await startApp(dist, 'watcher', {
        ...env,
        TASK_RETENTION_MS: String(retentionMs),
        ...(busyLagMs === undefined ? {} : { ARCHIVE_BUSY_LAG_MS: String(busyLagMs) }),
      });
    };

    // A kept-alive socket the API closed while idle between phases fails a fetch before anything
    // was answered: that create is sent again (at worst one task more, which the wait includes).
    const createNoop = async () => {
      try {
        return await api.post('/v1/tasks', { kind: 'noop', input: { steps: 3 } });
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        return api.post('/v1/tasks', { kind: 'noop', input: { steps: 3 } });
      }
    };
    /** Creates n noop tasks through the API and waits until none is unfinished: tasks/s. */
    const run = async (n: number): Promise<number> => {
      const started = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: POSTS_IN_FLIGHT }, async () => {
          while (next < n) {
            next++;
            const created = await createNoop();
            if (created.status !== 201) throw new Error(`create answered ${created.status}`);
          }
        }),
      );
      const unfinished = TASK_STATUSES.filter((status) => !TERMINAL_STATUSES.includes(status)).map((status) =>
        ctx.keys.tenantStatusIndex(0, TENANT, status),
      );
      for (;;) {
        const counts = await Promise.all(unfinished.map((key) => ctx.redis.zcard(key)));
        if (counts.every((count) => count === 0)) break;
        if (Date.now() - started > 20 * 60_000) throw new Error(`${n} tasks not finished in 20 minutes`);
        await sleep(20);
      }
      return n / ((Date.now() - started) / 1000);
    };
    /** Waits until the retention sweep has taken every finished task, then the job age once more. */
    const drained = async () => {
      while ((await ctx.redis.zcard(ctx.keys.retentionIndex(0))) > 0) await sleep(200);
      await sleep(RETENTION_MS * 2);
    };

    // BullMQ drops a completed job by age only when a later job of its queue completes: a short
    // trickle after the window lets it, so before and after hold the same few recent jobs.
    const settle = async () => {
      await drained();
      await run(20);
      await drained();
    };
    await startWatcher(RETENTION_MS);
    await run(warmUp);
    await settle();
    const before = await usedMemory(ctx.stats);
    const shapesBefore = await bytesByShape(ctx.stats);
    log(`retention: warmed up (${warmUp} tasks), used_memory ${before}`);
    const soakRate = await run(soakTasks);
    await settle();
    const after = await usedMemory(ctx.stats);
    const shapesAfter = await bytesByShape(ctx.stats);
    log(`retention: soak of ${soakTasks} tasks done, used_memory ${after}`);

    // Paired phases, alternated (with, without, eager, with, ...) so a drift of the machine falls on
    // all: the same tasks with retention (the default pacing: archiving waits for a quiet shard, at
    // most ARCHIVE_BUSY_LAG_MS), without (kept an hour), and eager (ARCHIVE_BUSY_LAG_MS=0: archived
    // as they finish, as under load that never pauses). Each phase starts with nothing due, so a
    // phase never pays for the archiving of the one before.
    const nothingDue = async () => {
      while ((await ctx.redis.zcount(ctx.keys.retentionIndex(0), '-inf', Date.now())) > 0) await sleep(100);
    };
    const modes = ['with', 'without', 'eager'] as const;
    type Mode = (typeof modes)[number];
    const seconds: Record<Mode, number> = { with: 0, without: 0, eager: 0 };
    const rates: Record<Mode, number[]> = { with: [], without: [], eager: [] };
    const archivedWhileRunning: Record<Mode, number> = { with: 0, without: 0, eager: 0 };
    const costs: Partial<Record<Mode, PhaseCost>> = {};
    for (let pair = 0; pair < pairs; pair++) {
      for (const mode of modes) {
        const watcherOf = () =>
          startWatcher(mode === 'without' ? 3_600_000 : PAIR_RETENTION_MS, mode === 'eager' ? 0 : undefined);
        await watcherOf();
        await nothingDue();
        // The phase before may have left thousands due, archived just now: every phase starts with
        // a fresh Watcher and a pause, so none inherits that catch-up's heap, JIT or disk writeback
        // (quick: a few hundred, so the Watcher that caught up runs the phase).
        if (!quick) await watcherOf();
        await sleep(2_000);
        const pids = { ...appPids(), redis: redis.pid };
        const mark = await markPhase(pids, ctx.stats);
        const kept = await ctx.redis.zcard(ctx.keys.retentionIndex(0));
        const rate = await run(pairTasks);
        archivedWhileRunning[mode] += kept + pairTasks - (await ctx.redis.zcard(ctx.keys.retentionIndex(0)));
        costs[mode] = addCost(costs[mode], await costSince(mark, pids, ctx.stats, pairTasks), pairs);
        rates[mode].push(round(rate));
        seconds[mode] += pairTasks / rate;
      }
    }
    const eagerRate = (pairs * pairTasks) / seconds.eager;
    const withRate = (pairs * pairTasks) / seconds.with;
    const withoutRate = (pairs * pairTasks) / seconds.without;
    await watcher?.stop(10_000);
    watcher = undefined;
    const archiveStarted = Date.now();
    const archive = await archiveNow(ctx);
    const archiveSeconds = (Date.now() - archiveStarted) / 1000;
    log(`retention: paired phases and the archive of ${archive.archived} done`);

    const results: BenchResults = {
      'retention.soak_memory_ratio': {
        value: round(after / before, 3),
        unit: 'used_memory after ÷ before',
        target: '≤ 1.2',
        note:
          `Redis used_memory once the retention window (${RETENTION_MS} ms) passed after ${soakTasks} noop tasks ` +
          `(3 steps) ran through api, worker, watcher and notifier, ÷ before them (after a ${warmUp}-task ` +
          'warm-up fills the capped streams). Each reading after the window and a 20-task trickle, so BullMQ has ' +
          `dropped its aged jobs. A private redis-server; EVENT_STREAM_MAXLEN 1000, FINISHED_JOB_RETENTION_MS ${RETENTION_MS}.`,
        details: {
          beforeBytes: before,
          afterBytes: after,
          tasks: soakTasks,
          soakTasksPerSecond: round(soakRate),
          keyBytesBefore: shapesBefore,
          keyBytesAfter: shapesAfter,
        },
      },
      'retention.throughput_ratio': {
        value: round(withRate / withoutRate, 3),
        unit: 'tasks/s with retention ÷ without',
        target: '≥ 0.9',
        note:
          `${pairs === 1 ? 'Once' : `${pairs} times`} ${pairTasks} noop tasks each way, created through the API and run to the end, with a ` +
          `${PAIR_RETENTION_MS} ms retention and the default pacing (the Watcher archives when the shard ` +
          'has no active task, or once a task is ARCHIVE_BUSY_LAG_MS overdue) and without (kept an hour), ' +
          'alternated in one run, each phase started with nothing due; total tasks ÷ total seconds per way. ' +
          'archivedWhileRunning: tasks archived before their phase ended.',
        details: {
          withTasksPerSecond: round(withRate),
          withoutTasksPerSecond: round(withoutRate),
          archivedWhileRunning,
          phaseTasksPerSecond: rates,
          costPerTask: costs,
        },
      },
      'retention.throughput_ratio_eager': {
        value: round(eagerRate / withoutRate, 3),
        unit: 'tasks/s archiving as they finish ÷ without',
        note:
          'The same pairs with ARCHIVE_BUSY_LAG_MS=0: every task archived as soon as its retention ends, ' +
          'while the others run, as under a load that never pauses. What archiving itself costs the hot path.',
        details: { eagerTasksPerSecond: round(eagerRate), withoutTasksPerSecond: round(withoutRate) },
      },
      'retention.archive_objects_per_second': {
        value: round(archive.archived / archiveSeconds),
        unit: 'archives/s',
        note:
          `The Watcher's retention sweep (one process, file:// store) archiving ${archive.archived} finished noop ` +
          'tasks: collect, gzip, write, read back and check, remove from Redis, eight at a time.',
        details: { archived: archive.archived, failed: archive.failed, seconds: round(archiveSeconds) },
      },
      'retention.bytes_per_archived_task': {
        value: archive.archived > 0 ? Math.round(archive.archivedBytes / archive.archived) : 0,
        unit: 'bytes/archive',
        note: 'Gzipped archive document of a 3-step noop task (record, actions, messages, journal, report).',
      },
    };
    return results;
  } finally {
    await watcher?.stop(10_000).catch(() => undefined);
    await Promise.all(apps.map((app) => app.stop(10_000).catch(() => undefined)));
    await ctx.close().catch(() => undefined);
    await redis.stop();
    rmSync(objects, { recursive: true, force: true });
  }
};
