import { join } from 'node:path';
import { type AppProcess, RedisTestContext, VigilStack } from '@vigil/testing';

/** DESIGN's defaults: heartbeat 30 s, stale after 120 s, a sweep a minute (liveness every 250 ms). */
const DEFAULT_TIMINGS = {
  API_KEYS: 'acme:test-key-0001',
  HEARTBEAT_INTERVAL_MS: '30000',
  STALE_AFTER_MS: '120000',
  WATCHER_INTERVAL_MS: '60000',
};
const BLOCKER = join(__dirname, 'fixtures/block-loop-on-sigusr2.cjs');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The edge of the dead-Worker rule at the default timings (docs/ARCHITECTURE.md, "Stalls,
 * diagnosed"): a killed Worker's tasks move to another Worker, while a Worker stopped or blocked
 * for 1.5 s — three times the confirmation window — keeps its task.
 */
describe('a dead Worker against a slow one, at the default timings', () => {
  const ctx = new RedisTestContext('liveness-edges');
  // Four app processes boot per test: slow on a loaded machine.
  jest.setTimeout(180_000);
  afterAll(() => ctx.close());

  async function onStack(
    input: { steps: number; stepMs: number },
    test: (stack: VigilStack, worker: AppProcess, id: string) => Promise<void>,
  ) {
    const stack = new VigilStack(ctx, DEFAULT_TIMINGS);
    try {
      await stack.startAll(['api', 'watcher']);
      const worker = await stack.start('worker', { NODE_OPTIONS: `--require ${BLOCKER}` });
      const id = (await stack.api!.post('/v1/tasks', { kind: 'noop', input })).body.id as string;
      await stack.waitForTask(id, (t) => (t.completedUnits ?? 0) >= 5, 20_000, '5 steps');
      await test(stack, worker, id);
    } finally {
      await stack.stopAll();
    }
  }

  /** The task goes on to completion on its first attempt, never recovered. */
  async function expectUntouched(stack: VigilStack, id: string): Promise<void> {
    const before = (await stack.tasks.get(id))!.completedUnits ?? 0;
    // Several confirmation windows (500 ms) after the Worker woke up.
    await sleep(2_000);
    const task = await stack.waitForTask(id, (t) => t.status === 'completed', 30_000, 'completion');
    expect(task.attempt).toBe(1);
    expect(task.retryHistory).toEqual([]);
    expect(task.completedUnits).toBeGreaterThan(before);
  }

  it('moves the task of a SIGKILLed Worker to another Worker, named crashed', async () => {
    // Long enough to outlive the second Worker's boot on a loaded machine.
    await onStack({ steps: 300, stepMs: 200 }, async (stack, worker, id) => {
      await stack.start('worker');
      worker.signal('SIGKILL');
      const resumed = await stack.waitForTask(
        id,
        (t) => t.attempt === 2 && t.status === 'running',
        20_000,
        'attempt 2 running',
      );
      expect(resumed.retryHistory[0]).toMatchObject({ reason: 'crashed' });
    });
  });

  it('leaves the task of a Worker stopped (SIGSTOP) for 1.5 s with it', async () => {
    await onStack({ steps: 120, stepMs: 25 }, async (stack, worker, id) => {
      worker.signal('SIGSTOP');
      await sleep(1_500);
      worker.signal('SIGCONT');
      await expectUntouched(stack, id);
    });
  });

  it('leaves the task of a Worker whose event loop is blocked for 1.5 s with it', async () => {
    await onStack({ steps: 120, stepMs: 25 }, async (stack, worker, id) => {
      worker.signal('SIGUSR2');
      await sleep(1_500);
      await expectUntouched(stack, id);
    });
  });
});
