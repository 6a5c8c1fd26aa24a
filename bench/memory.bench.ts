import { campaignBuildDemoInput } from '@vigil/builtin-kinds/campaign-build/demo-input';
import { MetaSandbox } from '@vigil/meta-sandbox';
import { TaskRepository, type TaskStatus } from '@vigil/tasks';
import { HttpClient, type AppProcess } from '@vigil/testing';
import { MissionWorld, TENANT } from '../test/support/mission-fixture';
import { archiveNow } from './lib/archive-now';
import { BenchContext } from './lib/context';
import { startApp } from './lib/processes';
import { growth, memorySnapshot, type MemorySnapshot } from './lib/redis-memory';
import type { Bench, BenchResults } from './lib/result';
import { round, sleep } from './lib/stats';

const API_KEY = 'bench-memory-key-0001';

interface Scenario {
  name: string;
  what: string;
  count: number;
  body: (i: number) => Record<string, unknown>;
}

/**
 * Archives the finished tasks now, as retention does once their time is up (the Watcher's
 * RetentionSweep, run in this process with a clock far ahead), so the bench can measure what stays
 * in Redis afterwards. Fails the bench if any of `taskIds` was not archived.
 */
export async function archiveFinishedTasks(ctx: BenchContext, taskIds: string[]): Promise<'archived'> {
  const report = await archiveNow(ctx);
  const left = (await Promise.all(taskIds.map((id) => ctx.redis.exists(ctx.keys.task(id))))).filter(Boolean);
  if (report.failed > 0 || left.length > 0)
    throw new Error(
      `archive: ${report.failed} failed, ${left.length} of ${taskIds.length} tasks still in Redis`,
    );
  return 'archived';
}

/**
 * Issue 22: Redis bytes per task, running and finished, through the real apps (API, Worker,
 * notifier, then the Watcher; production build, scripted agent): for each scenario, the tasks are
 * created through the API and run to `verifying` with no Watcher (every step recorded: the most a
 * running task holds), then the Watcher completes them and the notifier writes their last
 * messages. Each time every key under the bench's prefix is measured (`MEMORY USAGE … SAMPLES 0`):
 * a task's own keys, and its share of what the shard's BullMQ queues and indexes grew by since
 * before the scenario. `--quick`: noop 14 and 140 only.
 */
export const runMemoryBench: Bench = async ({ quick, distDir, log }) => {
  const dist = await distDir();
  const sandbox = new MetaSandbox({ accessToken: 'sandbox-token', seed: 7 });
  const world = new MissionWorld();
  const apps: AppProcess[] = [];
  let ctx: BenchContext | undefined;
  try {
    const { baseUrl: metaUrl } = await sandbox.listen(0);
    await world.start();
    ctx = new BenchContext('memory');
    const env = ctx.env({
      API_KEYS: `${TENANT}:${API_KEY}`,
      RATE_LIMIT_PER_MINUTE: '100000',
      WATCHER_INTERVAL_MS: '500',
      // 1,400 steps are 100 slices of SLICE_MAX_STEPS (14): past the default TASK_MAX_SLICES (24).
      TASK_MAX_SLICES: '120',
      META_API_BASE_URL: metaUrl,
      META_ACCESS_TOKEN: 'sandbox-token',
      ...world.env(),
    });
    apps.push(
      ...(await Promise.all((['api', 'worker', 'notifier'] as const).map((app) => startApp(dist, app, env)))),
    );
    const port = /ready on port (\d+)/.exec(apps[0].text())?.[1];
    const api = new HttpClient(`http://127.0.0.1:${port}`, API_KEY);

    const noop = (steps: number, count: number): Scenario => ({
      name: `noop_${steps}`,
      what: `noop, ${steps} steps`,
      count,
      body: () => ({ kind: 'noop', input: { steps } }),
    });
    const scenarios: Scenario[] = quick
      ? [noop(14, 10), noop(140, 5)]
      : [
          noop(14, 20),
          noop(140, 10),
          noop(1_400, 4),
          {
            name: 'campaign_build',
            what: 'campaign_build of the demo (134 steps) against the Meta sandbox',
            count: 2,
            body: (i) => ({
              kind: 'campaign_build',
              input: campaignBuildDemoInput({ adAccountId: `act_${2_000_000 + i}` }),
            }),
          },
          {
            name: 'mission',
            what: 'scripted mission (2 files, 2 memory entities, 1 ticket, 2 findings) on real MCP servers',
            // One at a time: its criteria count the tracker's tickets.
            count: 1,
            body: () => world.request(),
          },
        ];

    const results: BenchResults = {};
    for (const scenario of scenarios) {
      world.reset();
      const measured = await measureScenario(ctx, dist, env, api, scenario, log);
      Object.assign(results, measured);
    }
    return results;
  } finally {
    await Promise.all(apps.map((app) => app.stop(10_000)));
    await ctx?.close();
    await world.close();
    await sandbox.close();
  }
};

async function measureScenario(
  ctx: BenchContext,
  dist: string,
  env: Record<string, string>,
  api: HttpClient,
  scenario: Scenario,
  log: (message: string) => void,
): Promise<BenchResults> {
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const before = await settled(ctx);
  const ids: string[] = [];
  for (let i = 0; i < scenario.count; i++) {
    const created = await api.post('/v1/tasks', scenario.body(i));
    if (created.status !== 201) throw new Error(`${scenario.name}: create answered ${created.status}`);
    ids.push(created.body.id as string);
  }
  // No Watcher yet: every task stops at `verifying` with all its steps recorded.
  await waitForAll(tasks, ids, ['verifying'], `${scenario.name}: verifying`);
  const running = await settled(ctx);
  const watcher = await startApp(dist, 'watcher', env);
  let finished: MemorySnapshot;
  try {
    await waitForAll(tasks, ids, ['completed'], `${scenario.name}: completed`);
    finished = await settled(ctx);
  } finally {
    await watcher.stop(10_000);
  }
  await archiveFinishedTasks(ctx, ids);
  const afterArchive = await settled(ctx);
  log(`memory: ${scenario.name} × ${ids.length} measured`);

  const n = ids.length;
  const perTask = (snapshot: MemorySnapshot) =>
    ids.reduce((sum, id) => sum + (snapshot.byTask.get(id) ?? 0), 0) / n;
  const share = (snapshot: MemorySnapshot) => {
    const grown = growth(before, snapshot);
    return {
      taskKeys: round(perTask(snapshot)),
      jobs: round(grown.jobs / n),
      indexes: round(grown.indexes / n),
    };
  };
  const streams = (snapshot: MemorySnapshot) => {
    const grown = growth(before, snapshot);
    const entries = snapshot.taskEventEntries - before.taskEventEntries;
    return {
      taskEventStreamBytesPerTask: round(grown.taskEvents / n),
      taskEventsPerTask: round(entries / n),
      bytesPerTaskEvent: entries > 0 ? round(grown.taskEvents / entries) : null,
      queueEventStreamBytesPerTask: round(grown.queueEvents / n),
    };
  };
  const total = (parts: { taskKeys: number; jobs: number; indexes: number }) =>
    Math.round(parts.taskKeys + parts.jobs + parts.indexes);
  const runningParts = share(running);
  const finishedParts = share(finished);
  const kept =
    'its share of the BullMQ job keys and of the shard indexes (growth since before the scenario ÷ tasks)';
  const capped =
    'Not counted in the value: the task event stream (capped at EVENT_STREAM_MAXLEN) and BullMQ’s event ' +
    'stream per queue (capped at 1,000), which hold recent events rather than anything kept per task.';
  const afterArchiveBytes = Math.round(perTask(afterArchive) + growth(before, afterArchive).jobs / n);
  return {
    [`memory.${scenario.name}.running_bytes_per_task`]: {
      value: total(runningParts),
      unit: 'bytes/running task',
      note:
        `${scenario.what}, ${n} at once: at the end of its run (every step recorded, verifying, no Watcher yet), ` +
        `MEMORY USAGE of the task's own keys + ${kept}. ${capped}`,
      details: { ...runningParts, ...streams(running), tasks: n },
    },
    [`memory.${scenario.name}.finished_bytes_per_task`]: {
      value: total(finishedParts),
      unit: 'bytes/finished task',
      note:
        `${scenario.what}: completed by the Watcher, its last messages written, before any archive: the task's ` +
        `own keys + ${kept} (completed slice and wake jobs are kept an hour). ${capped}`,
      details: {
        ...finishedParts,
        ...streams(finished),
        tasks: n,
        otherKeys: finished.other,
      },
    },
    [`memory.${scenario.name}.after_archive_bytes_per_task`]: {
      value: afterArchiveBytes,
      unit: 'bytes/archived task',
      note:
        `${scenario.what}: after the retention sweep archived them: the task's own keys left (none) + its share ` +
        `of the finished BullMQ jobs, which leave by their own age (an hour, at most 10,000 per queue)`,
      details: {
        taskKeys: round(perTask(afterArchive)),
        jobs: round(growth(before, afterArchive).jobs / n),
        tasks: n,
      },
    },
  };
}

async function waitForAll(
  tasks: TaskRepository,
  ids: string[],
  statuses: TaskStatus[],
  what: string,
): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const records = await Promise.all(ids.map((id) => tasks.get(id)));
    if (records.every((task) => task && statuses.includes(task.status))) return;
    // `retrying` too: a failed attempt (no Watcher yet to retry it) means the run is not what it measures.
    const ended = records.find((task) => task && ['failed', 'cancelled', 'retrying'].includes(task.status));
    if (ended)
      throw new Error(
        `${what}: task ${ended.id} ${ended.status}: ${JSON.stringify(ended.failure ?? ended.retryHistory.at(-1))}`,
      );
    if (Date.now() > deadline)
      throw new Error(`${what} not reached in 300 s: ${records.map((task) => task?.status).join(', ')}`);
    await sleep(100);
  }
}

/**
 * A snapshot once the notifier has read and handled every event (its group has no lag and nothing
 * pending) and the slice queue has nothing waiting or active, so what follows a status change
 * (the user message, the job's move to completed) is in.
 */
async function settled(ctx: BenchContext): Promise<MemorySnapshot> {
  const stream = ctx.keys.events(0);
  const queue = `${ctx.prefix}:${ctx.keys.sliceQueueName(0)}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const groups = (await ctx.redis.exists(stream))
      ? ((await ctx.redis.xinfo('GROUPS', stream)) as unknown[][])
      : [];
    const busy = groups.some((group) => {
      const fields = Object.fromEntries(
        Array.from({ length: group.length / 2 }, (_, i) => [String(group[2 * i]), group[2 * i + 1]]),
      );
      return Number(fields.pending) > 0 || Number(fields.lag ?? 0) > 0;
    });
    const live = (await ctx.redis.llen(`${queue}:wait`)) + (await ctx.redis.llen(`${queue}:active`));
    if (!busy && live === 0) return memorySnapshot(ctx.redis, ctx.prefix);
    if (Date.now() > deadline)
      throw new Error('memory: the notifier or the slice queue did not settle in 60 s');
    await sleep(200);
  }
}
