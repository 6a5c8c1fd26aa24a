import { ActionRecord } from '@vigil/tasks';
import { copyBuildAs, RedisTestContext, VigilStack } from '@vigil/testing';

const DRAIN_TIMEOUT_MS = 4000;

/** A deploy is not a failure: a Worker told to stop drains its slices and hands them on. */
describe('SIGTERM drains a Worker', () => {
  const ctx = new RedisTestContext('drain');
  const stack = new VigilStack(ctx, {
    HEARTBEAT_INTERVAL_MS: '200',
    STALE_AFTER_MS: '3000',
    WATCHER_INTERVAL_MS: '250',
    LIVENESS_INTERVAL_MS: '100',
    USER_UPDATE_INTERVAL_MS: '60000',
    SLICE_MAX_STEPS: '10',
    DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS),
  });
  const next = copyBuildAs('next-build');

  beforeAll(async () => {
    await stack.start('api');
    await stack.start('watcher');
    await stack.start('notifier');
  });
  afterAll(async () => {
    await ctx.close();
    next.remove();
  });

  async function actionsOf(id: string): Promise<ActionRecord[]> {
    return (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1)).map(
      (raw) => JSON.parse(raw) as ActionRecord,
    );
  }

  async function eventTypesOf(id: string): Promise<string[]> {
    const entries = await ctx.redis.xrange(ctx.keys.events(0), '-', '+');
    return entries.filter(([, fields]) => fields[3] === id).map(([, fields]) => fields[1]);
  }

  it('finishes the step in flight, hands the task on, exits 0: no retry, no recovery notice, each step once, both versions recorded', async () => {
    const old = await stack.start('worker');
    // Slow enough (6 s of steps) that the task is still running once the second Worker is up.
    const created = await stack.api!.post('/v1/tasks', { kind: 'noop', input: { steps: 60, stepMs: 100 } });
    const id = created.body.id as string;
    await stack.waitForTask(
      id,
      (task) => (task.completedUnits ?? 0) >= 3,
      20_000,
      '3 steps on the old build',
    );
    await stack.start('worker', {}, next.dir);
    const before = await stack.waitForTask(
      id,
      (task) => (task.completedUnits ?? 0) >= 15,
      20_000,
      '15 steps',
    );
    expect(before.status).not.toBe('completed');

    const signalled = Date.now();
    old.signal('SIGTERM');
    expect(await old.exited()).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(DRAIN_TIMEOUT_MS);
    expect(old.text()).toMatch(/drained [01] slices in \d+ ms/);

    const task = await stack.waitForTask(id, (t) => t.status === 'completed', 30_000, 'completion');
    expect(task).toMatchObject({ attempt: 1, retryCount: 0, retryHistory: [], completedUnits: 60 });
    expect(task.codeVersion).toMatch(/\+next-build$/);
    const actions = await actionsOf(id);
    const keys = actions.filter((action) => action.key).map((action) => action.key);
    expect(keys).toHaveLength(60);
    expect(new Set(keys).size).toBe(60);
    const versions = new Set(actions.map((action) => action.codeVersion));
    expect(versions.size).toBe(2);
    expect([...versions].some((version) => version?.endsWith('+next-build'))).toBe(true);
    expect(await eventTypesOf(id)).not.toContain('task.recovered');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const messages = (await ctx.redis.lrange(ctx.keys.messages(id), 0, -1)).map(
      (raw) => JSON.parse(raw) as { kind: string },
    );
    expect(messages.map((message) => message.kind)).not.toContain('recovery');
    expect(messages.map((message) => message.kind)).toContain('completed');
  });

  it('past DRAIN_TIMEOUT_MS aborts the step in flight and hands the task on all the same', async () => {
    await stack.stopApps('worker');
    const old = await stack.start('worker');
    // Each step takes longer than the drain deadline.
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: 2, stepMs: DRAIN_TIMEOUT_MS + 2000 },
    });
    const id = created.body.id as string;
    await stack.waitForTask(id, (task) => task.status === 'running', 20_000, 'running');
    // Signalled as soon as its first step runs, so that step (6 s) outlasts the drain (4 s) whatever
    // the machine's speed; the next version starts while the old one drains.
    const signalled = Date.now();
    old.signal('SIGTERM');
    await stack.start('worker', {}, next.dir);
    expect(await old.exited()).toEqual({ code: 0, signal: null });
    // Node starts a timer from the event loop's cached time, which trails the clock by however
    // long the loop has been busy in its turn (here: the shutdown hooks before the drain's timer,
    // on a loaded machine some tens of ms), so the deadline may fire that much early.
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(DRAIN_TIMEOUT_MS - 250);
    expect(old.text()).toMatch(/drain deadline passed: handing on 1 slices/);

    const task = await stack.waitForTask(
      id,
      (t) => (t.completedUnits ?? 0) >= 1,
      30_000,
      'a step on the next worker',
    );
    expect(task).toMatchObject({ attempt: 1, retryCount: 0, retryHistory: [] });
    const done = (await actionsOf(id)).filter((action) => action.key && !action.error);
    expect(done.map((action) => action.codeVersion)).toEqual([expect.stringMatching(/\+next-build$/)]);
    expect(await eventTypesOf(id)).not.toContain('task.recovered');
  });
});
