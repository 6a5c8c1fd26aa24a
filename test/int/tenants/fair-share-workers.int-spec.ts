import { DelayedError, Worker } from 'bullmq';
import { bullConnection, type SliceJob } from '@vigil/queue';
import { FakeToolGateway, RedisTestContext, SliceRunnerHarness } from '@vigil/testing';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PARK_MS = 100;

/**
 * The weighted fair share between tenants through real BullMQ workers (docs/operations.md, "Tenant
 * limits"): two Workers take slice jobs in queue order; a tenant holding its share while another
 * waits is parked, so the other's tasks start early; a tenant alone takes every slot.
 */
describe('the fair share between tenants, on two BullMQ workers', () => {
  const ctx = new RedisTestContext('fair-share-workers', {
    SLICE_MAX_STEPS: '1',
    TENANT_SLOT_RETRY_MS: String(PARK_MS),
    GLOBAL_SPEND_LIMIT_USD: '',
  });
  const harness = new SliceRunnerHarness(ctx);
  const tenants = { a: { allow: [] }, b: { allow: [] }, solo: { allow: [] } };
  const tools = new FakeToolGateway([]);
  const create = harness.createUseCase(harness.kinds(tools), tenants);
  const connection = bullConnection(ctx.config.redisUrl);
  const outcomes: string[] = [];
  afterAll(() => ctx.close());

  /** Two Worker processes' worth: each its own runner, one slice at a time, parking as the app does. */
  function startWorkers(): Worker[] {
    return ['w1', 'w2'].map((workerId) => {
      const runner = harness.runner(tools, { tenants, workerId });
      return new Worker<SliceJob>(
        ctx.sliceQueue().name,
        async (job, token) => {
          const outcome = await runner.run(job.data);
          outcomes.push(outcome);
          if (outcome === 'parked' && token) {
            await job.moveToDelayed(Date.now() + PARK_MS, token);
            throw new DelayedError();
          }
          return outcome;
        },
        { connection, prefix: ctx.prefix, concurrency: 1, maxStalledCount: 0 },
      );
    });
  }

  async function createTasks(tenantId: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { task } = await create.execute(tenantId, { kind: 'noop', input: { steps: 3, stepMs: 20 } });
      ids.push(task.id);
    }
    return ids;
  }

  /** The tasks in the order their first slice started (the shard's task.started events). */
  async function startOrder(): Promise<string[]> {
    const entries = await ctx.redis.xrange(ctx.keys.events(0), '-', '+');
    return entries
      .map(([, fields]) =>
        Object.fromEntries(fields.flatMap((_, i) => (i % 2 ? [] : [[fields[i], fields[i + 1]]]))),
      )
      .filter((event) => event.type === 'task.started')
      .map((event) => event.taskId);
  }

  async function untilStarted(ids: string[]): Promise<string[]> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const order = await startOrder();
      if (ids.every((id) => order.includes(id))) return order;
      if (Date.now() > deadline)
        throw new Error(`not all started: ${ids.filter((id) => !order.includes(id)).join(', ')}`);
      await sleep(50);
    }
  }

  async function untilVerifying(ids: string[]): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (
      !(await Promise.all(ids.map((id) => harness.tasks.get(id)))).every((t) => t?.status === 'verifying')
    ) {
      if (Date.now() > deadline) throw new Error('the tasks did not all reach verifying');
      await sleep(50);
    }
  }

  it('starts the tasks of a tenant that enqueued after another’s twenty before that queue drains, and starves neither', async () => {
    const first = await createTasks('a', 20);
    const second = await createTasks('b', 5);
    const workers = startWorkers();
    try {
      const order = await untilStarted([...first, ...second]);
      const startsOfA = (before: number) => order.slice(0, before).filter((id) => first.includes(id)).length;
      // In queue order (no fair share) b's first task would start after all twenty of a's.
      const firstOfB = order.findIndex((id) => second.includes(id));
      expect(startsOfA(firstOfB)).toBeLessThanOrEqual(2);
      const lastOfB = Math.max(...second.map((id) => order.indexOf(id)));
      expect(startsOfA(lastOfB)).toBeLessThan(15);
      // a was held back, never starved: every one of its tasks started.
      expect(outcomes).toContain('parked');
      expect(order.filter((id) => first.includes(id))).toHaveLength(20);
      await untilVerifying([...first, ...second]);
      if (process.env.FAIR_SHARE_DEBUG)
        console.log(order.map((id) => (first.includes(id) ? 'a' : 'b')).join(''));
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
    }
  });

  it('lets a tenant alone take every slot: none of its slices is parked', async () => {
    outcomes.length = 0;
    const ids = await createTasks('solo', 8);
    const workers = startWorkers();
    try {
      await untilVerifying(ids);
      // The last slice's move is in Redis before its job returns its outcome here.
      for (const deadline = Date.now() + 10_000; outcomes.length < 32 && Date.now() < deadline;)
        await sleep(20);
      // Three one-step slices, then the claim of done: every slice ran where it was picked up.
      const counts: Record<string, number> = {};
      for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
      expect(counts).toEqual({ next_slice: 24, verifying: 8 });
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
    }
  });
});
