import { campaignBuildDemoInput } from '@vigil/builtin-kinds/campaign-build/demo-input';
import { MetaSandbox } from '@vigil/meta-sandbox';
import type { ActionRecord, TaskRecord } from '@vigil/tasks';
import { RedisTestContext, SmallRedis, VigilStack } from '@vigil/testing';
import { CAMPAIGN_OBJECTS, objectsOf } from '../../support/sandbox-objects';

const STALE_AFTER_MS = 2_000;
const NOOP_TASKS = 10;
const NOOP_STEPS = 120;
const ACCOUNT = 'act_4200001';

/**
 * A full Redis survived by real processes (docs/operations.md, "A full Redis"): ten noop tasks and
 * a campaign build with external writes run on a Redis whose maxmemory is reached mid-run. While
 * it is full the API answers creates 503 store_full with Retry-After, /health says degraded, and
 * no task is recovered or retried; once maxmemory is raised every task completes verified, each
 * step recorded once and each external write made once.
 */
describe('a full Redis, with api, worker and watcher processes', () => {
  let small: SmallRedis;
  let ctx: RedisTestContext;
  let stack: VigilStack;
  const sandbox = new MetaSandbox({
    accessToken: 'sandbox-token',
    seed: 11,
    // Slow enough that the build is still writing when Redis fills.
    faults: { latencyMs: { min: 60, max: 100 } },
  });

  beforeAll(async () => {
    small = await SmallRedis.start({ portOffset: 3 });
    ctx = new RedisTestContext('store-full-e2e', { REDIS_URL: small.url });
    const { baseUrl } = await sandbox.listen(0);
    stack = new VigilStack(ctx, {
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: String(STALE_AFTER_MS),
      WATCHER_INTERVAL_MS: '250',
      LIVENESS_INTERVAL_MS: '250',
      SLICE_MAX_STEPS: '10',
      WORKER_CONCURRENCY: '16',
      META_API_BASE_URL: baseUrl,
      META_ACCESS_TOKEN: 'sandbox-token',
    });
    await stack.startAll(['api', 'watcher', 'worker']);
  });
  afterAll(async () => {
    await small?.free();
    await ctx?.close();
    await sandbox.close();
    await small?.stop();
  });

  const actionsOf = async (id: string) =>
    (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1)).map((raw) => JSON.parse(raw) as ActionRecord);
  const eventsOf = async (id: string) =>
    (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
      .map(([, fields]) =>
        Object.fromEntries(fields.flatMap((_, i) => (i % 2 ? [] : [[fields[i], fields[i + 1]]]))),
      )
      .filter((event) => event.taskId === id);
  const metricsOf = async (app: 'watcher') => {
    const port = stack.processes.find((process) => process.name === app)!.port;
    return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  };
  async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('answers 503 store_full while full, recovers nothing, and completes every task once writes succeed: each step and write once', async () => {
    const api = stack.api!;
    const ids: string[] = [];
    for (let i = 0; i < NOOP_TASKS; i++) {
      const created = await api.post('/v1/tasks', {
        kind: 'noop',
        input: { steps: NOOP_STEPS, stepMs: 100 },
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id as string);
    }
    const build = await api.post('/v1/tasks', {
      kind: 'campaign_build',
      input: campaignBuildDemoInput({ adAccountId: ACCOUNT }),
    });
    expect(build.status).toBe(201);
    const buildId = build.body.id as string;
    const all = [...ids, buildId];
    const tasksNow = async () => Promise.all(all.map(async (id) => (await stack.tasks.get(id))!));
    await until('every task running with steps recorded', async () =>
      (await tasksNow()).every((task) => task.status === 'running' && (task.completedUnits ?? 0) >= 5),
    );

    // Full once the tasks' own writes have used a little more, well before any task can end (a
    // few steps' worth: the faster a slice continues, the sooner a task reaches its claim); then
    // held full (a cap just above what is used opens again for moments as client buffers are freed).
    await small.fillAfter(32 * 1024);
    await until('Redis full from the tasks’ writes', () => small.isFull(), 30_000);
    await small.fill();
    const filledAt = Date.now();
    const recordedWhenFull = new Map((await tasksNow()).map((task) => [task.id, task.completedUnits]));

    const refused = await api.post('/v1/tasks', { kind: 'noop', input: { steps: 2 } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable', code: 'store_full' });
    expect((await api.get(`/v1/tasks/${buildId}`)).status).toBe(200);
    const health = await api.withKey(undefined).get('/health');
    expect([health.status, health.body.status]).toEqual([200, 'degraded']);
    await until('the Watcher names it', async () =>
      /vigil_store_full\{[^}]*\} 1/.test(await metricsOf('watcher')),
    );
    expect(await metricsOf('watcher')).toMatch(/vigil_redis_used_bytes\{[^}]*\} [1-9]/);

    // Full for well past STALE_AFTER_MS: every heartbeat goes stale, and nothing is recovered.
    await new Promise((resolve) => setTimeout(resolve, 2 * STALE_AFTER_MS + 1_000));
    for (const task of await tasksNow()) {
      // As Redis left them: running (silenced mid-slice) or queued (between two slices, or continued
      // in a moment the filling Redis took writes again); no attempt failed.
      expect([task.id, task.retryCount, task.retryHistory]).toEqual([task.id, 0, []]);
      expect(['running', 'queued']).toContain(task.status);
      // No step was recorded while full.
      expect([task.id, task.completedUnits]).toEqual([task.id, recordedWhenFull.get(task.id)]);
    }
    expect(Date.now() - filledAt).toBeGreaterThan(STALE_AFTER_MS);
    const worker = stack.processes.find((process) => process.name === 'worker')!;
    expect(worker.text()).toMatch(/store_full: Redis is full and refused a write; the slice ends/);

    await small.free();
    const done: TaskRecord[] = [];
    for (const id of all)
      done.push(await stack.waitForTask(id, (task) => task.status === 'completed', 120_000, 'completion'));
    const watcher = stack.processes.find((process) => process.name === 'watcher')!;
    expect(watcher.text()).toMatch(/store_full over: Redis takes writes again/);
    expect((await api.post('/v1/tasks', { kind: 'noop', input: { steps: 1 } })).status).toBe(201);

    let continued = 0;
    for (const task of done) {
      // Verified; no attempt failed, no retry counted, no recovery notice.
      expect(task).toMatchObject({ verification: { passed: true }, retryCount: 0, retryHistory: [] });
      const events = await eventsOf(task.id);
      expect(events.map((event) => event.type)).not.toContain('task.recovered');
      const handOffs = events.filter(
        (event) => event.type === 'task.progress' && event.data.includes('store_full'),
      );
      expect(handOffs).toHaveLength(task.attempt - 1);
      if (task.attempt > 1) continued++;
      // Each step recorded once.
      const recorded = (await actionsOf(task.id)).filter((action) => action.key && !action.error);
      const keys = recorded.map((action) => action.key);
      expect([task.id, new Set(keys).size]).toEqual([task.id, keys.length]);
      expect([task.id, keys.length]).toEqual([task.id, task.id === buildId ? 134 : NOOP_STEPS]);
    }
    // The tasks whose heartbeat went stale while Redis was full were continued, none recovered (a
    // task between two slices when it filled was queued, and simply picked up again).
    expect(continued).toBeGreaterThan(0);
    // Each external write made once.
    expect(objectsOf(sandbox, ACCOUNT)).toEqual(CAMPAIGN_OBJECTS);
    expect(sandbox.duplicates()).toEqual([]);
  });
});
