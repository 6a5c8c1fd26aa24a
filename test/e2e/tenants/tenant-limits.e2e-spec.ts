import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TaskRecord } from '@vigil/tasks';
import { AnthropicFake, catalogFile, type HttpClient, RedisTestContext, VigilStack } from '@vigil/testing';

const API_KEYS = 'bulk:key-bulk-00001,small:key-small-0001,capped:key-capped-001,paying:key-paying-001';

async function createMany(api: HttpClient, count: number, body: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - start) }, () => api.post('/v1/tasks', body)),
    );
    for (const created of batch) {
      expect(created.status).toBe(201);
      ids.push(created.body.id as string);
    }
  }
  return ids;
}

/**
 * A tenant's running places across Worker processes (docs/operations.md, "Tenant limits"): 200
 * queued noop tasks of a tenant with maxRunning 2 never hold more than two places, and never hold
 * up another tenant's five tasks, queued behind them, which start within one slice time: the busy
 * tenant's two places begin at most one new slice each meanwhile.
 */
describe('tenants: maxRunning', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-tenants-e2e-'));
  const ctx = new RedisTestContext('tenants-running-e2e');
  let stack: VigilStack;

  beforeAll(async () => {
    stack = new VigilStack(ctx, {
      API_KEYS,
      VIGIL_TOOLS: catalogFile({ tenants: { bulk: { maxRunning: 2 }, small: { allow: [] } } }, dir),
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '4000',
      WATCHER_INTERVAL_MS: '300',
      SLICE_MAX_STEPS: '2',
      WORKER_CONCURRENCY: '6',
      // Places given back wake parked jobs at once; the retry is only the fallback.
      TENANT_SLOT_RETRY_MS: '30000',
      RATE_LIMIT_PER_MINUTE: '100000',
      MAX_ACTIVE_TASKS_PER_TENANT: '1000',
    });
    // The Workers start first (one at a time, on a busy machine): all 205 jobs then reach them in order.
    await stack.startAll(['api', 'watcher', 'worker', 'worker']);
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds the busy tenant to two running tasks over two Workers while the other tenant’s tasks start at once', async () => {
    const bulkApi = stack.api!.withKey('key-bulk-00001');
    const smallApi = stack.api!.withKey('key-small-0001');
    // Sampled every 50 ms from Redis for the whole run: the busy tenant's running tasks.
    const running = ctx.keys.tenantStatusIndex(0, 'bulk', 'running');
    const sampled: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        sampled.push(await ctx.redis.zcard(running));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    // Two slices of 2 steps of 1.5 s each: a slice takes 3 s or more.
    const bulk = await createMany(bulkApi, 200, { kind: 'noop', input: { steps: 4, stepMs: 1500 } });
    const bulkSlices = async () =>
      (await Promise.all(bulk.map((id) => stack.tasks.get(id)))).reduce(
        (sum, t) => sum + (t?.sliceCount ?? 0),
        0,
      );
    const slicesBeforeSmall = await bulkSlices();
    const small = await createMany(smallApi, 5, { kind: 'noop', input: { steps: 2, stepMs: 50 } });
    let bulkSlicesWhileSmallStarted: number | undefined;
    const deadline = Date.now() + 120_000;
    let bulkCompleted = 0;
    while (Date.now() < deadline) {
      const smallTasks = await Promise.all(small.map((id) => stack.tasks.get(id)));
      if (bulkSlicesWhileSmallStarted === undefined && smallTasks.every((t) => t?.startedAt))
        bulkSlicesWhileSmallStarted = (await bulkSlices()) - slicesBeforeSmall;
      bulkCompleted = await ctx.redis.zcard(ctx.keys.tenantStatusIndex(0, 'bulk', 'completed'));
      if (bulkCompleted >= 6 && smallTasks.every((t) => t?.status === 'completed')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    sampling = false;
    await sampler;
    // Queued behind 200 others, the small tenant's tasks started within one slice time: the two
    // busy places began at most one new slice each meanwhile.
    expect(bulkSlicesWhileSmallStarted).toBeLessThanOrEqual(2);
    expect(Math.max(...sampled)).toBe(2);
    expect(sampled.length).toBeGreaterThan(100);
    // Places given back were taken again: the busy tenant kept going, two at a time.
    expect(bulkCompleted).toBeGreaterThanOrEqual(6);
    for (const id of small) expect((await stack.tasks.get(id))?.status).toBe('completed');

    // A task waiting for a place says so, and is neither stale nor recovered in the Watcher's eyes.
    const waiting = (await Promise.all(bulk.slice(150).map((id) => stack.tasks.get(id)))).filter(
      (t): t is TaskRecord => t?.status === 'queued' && t.statusReason === 'tenant_max_running',
    );
    expect(waiting.length).toBeGreaterThan(0);
    const view = await bulkApi.get(`/v1/tasks/${waiting[0].id}`);
    expect(view.body).toMatchObject({ status: 'queued', statusReason: 'tenant_max_running' });
    const everyBulk = await Promise.all(bulk.map((id) => stack.tasks.get(id)));
    expect(everyBulk.filter((t) => (t?.attempt ?? 1) > 1 || (t?.retryHistory.length ?? 0) > 0)).toEqual([]);
  });
});

/**
 * A tenant's daily budget through the real Anthropic SDK against a loopback fake: the capped
 * tenant's tasks pause with `tenant_daily_budget` before its day's spend passes the budget, and
 * cannot resume while it is spent; the other tenant's tasks complete; router calls are charged to
 * the tenant that sent the message, in `GET /v1/tenant/spend`.
 */
describe('tenants: dailyBudgetUsd', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-tenants-budget-e2e-'));
  const ctx = new RedisTestContext('tenants-budget-e2e');
  const fake = new AnthropicFake({ apiKey: 'sk-ant-tenants-test' });
  const BUDGET = 0.7;
  let stack: VigilStack;

  beforeAll(async () => {
    stack = await fake.stackOn(ctx, {
      API_KEYS,
      VIGIL_TOOLS: catalogFile(
        { tenants: { capped: { dailyBudgetUsd: BUDGET }, paying: { dailyBudgetUsd: 100 } } },
        dir,
      ),
      ROUTER_MODEL: 'claude-haiku-4-5',
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '5000',
      WATCHER_INTERVAL_MS: '500',
      SLICE_MAX_STEPS: '10',
    });
    await stack.startAll(['api', 'watcher', 'worker', 'worker']);
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pauses the capped tenant’s tasks within its day while the other tenant’s complete, and counts router calls', async () => {
    const capped = stack.api!.withKey('key-capped-001');
    const paying = stack.api!.withKey('key-paying-001');
    const cappedIds = await createMany(capped, 3, { kind: 'noop', input: { steps: 60 } });
    const payingIds = await createMany(paying, 3, { kind: 'noop', input: { steps: 4 } });
    const dayKey = ctx.keys.tenantDaySpend('capped', new Date().toISOString().slice(0, 10));

    const paused: TaskRecord[] = [];
    for (const id of cappedIds) {
      paused.push(
        await stack.waitForTask(
          id,
          (task) => {
            expect(task.status).not.toBe('completed');
            return task.status === 'paused';
          },
          60_000,
          'the tenant budget pause',
        ),
      );
    }
    for (const task of paused)
      expect(task).toMatchObject({ statusReason: 'tenant_daily_budget', retryCount: 0 });
    // Spend (settled and reserved) never passed the budget, and the pause came only near it.
    const spent = Number(await ctx.redis.get(dayKey));
    expect(spent).toBeLessThanOrEqual(BUDGET);
    expect(paused.reduce((sum, task) => sum + task.completedUnits!, 0)).toBeGreaterThan(0);
    for (const id of payingIds)
      await stack.waitForTask(id, (t) => t.status === 'completed', 60_000, 'completion');

    // Resuming while the day's budget is spent is refused, saying when it can be resumed.
    const refused = await capped.post(`/v1/tasks/${cappedIds[0]}/resume`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/tomorrow \(UTC\)/);
    expect((await stack.tasks.get(cappedIds[0]))?.status).toBe('paused');
    const cappedSpend = await capped.get('/v1/tenant/spend');
    expect(cappedSpend.body).toMatchObject({ tenantId: 'capped', dailyBudgetUsd: BUDGET });
    expect(cappedSpend.body.spentUsd).toBeCloseTo(Number(await ctx.redis.get(dayKey)), 6);

    // A router call (the fake bills it) is the paying tenant's, beside its tasks' calls.
    const before = (await paying.get('/v1/tenant/spend')).body as { spentUsd: number };
    const tasksSpent = (await Promise.all(payingIds.map((id) => stack.tasks.get(id)))).reduce(
      (sum, task) => sum + (task?.spentUsd ?? 0),
      0,
    );
    expect(before.spentUsd).toBeCloseTo(tasksSpent, 6);
    const callsBefore = fake.calls;
    const reply = await paying.post('/v1/conversations/c-spend/messages', { text: 'what can you do?' });
    expect(reply.status).toBe(201);
    expect(fake.calls).toBe(callsBefore + 1);
    const after = (await paying.get('/v1/tenant/spend')).body as { spentUsd: number; exhausted: boolean };
    expect(after.spentUsd).toBeGreaterThan(before.spentUsd);
    expect(after.exhausted).toBe(false);
    const metrics = await (await fetch(`${stack.api!.baseUrl}/metrics`)).text();
    const gauge = /vigil_tenant_spend_usd\{tenant="paying"[^}]*\} ([0-9.e-]+)/.exec(metrics);
    expect(Number(gauge?.[1])).toBeCloseTo(after.spentUsd, 6);
  });
});
