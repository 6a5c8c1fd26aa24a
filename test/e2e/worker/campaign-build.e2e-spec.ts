import { campaignBuildDemoInput } from '@vigil/builtin-kinds/campaign-build/demo-input';
import { MetaSandbox } from '@vigil/meta-sandbox';
import { RedisTestContext, VigilStack } from '@vigil/testing';
import { CAMPAIGN_OBJECTS, objectsOf as sandboxObjectsOf } from '../../support/sandbox-objects';

const FAST = {
  HEARTBEAT_INTERVAL_MS: '200',
  STALE_AFTER_MS: '2000',
  WATCHER_INTERVAL_MS: '250',
  META_ACCESS_TOKEN: 'sandbox-token',
};

const account = (n: number) => `act_${1_000_000 + n}`;

describe('campaign_build with real processes against the Meta sandbox', () => {
  const ctx = new RedisTestContext('campaign');
  const sandbox = new MetaSandbox({ accessToken: 'sandbox-token', seed: 7 });
  let stack: VigilStack;

  const objectsOf = (accountId: string) => sandboxObjectsOf(sandbox, accountId);
  const duplicatesOf = (accountId: string) =>
    sandbox.duplicates().filter((group) => JSON.stringify(group).includes(accountId.slice(4)));
  const EXPECTED = CAMPAIGN_OBJECTS;

  beforeAll(async () => {
    const { baseUrl } = await sandbox.listen(0);
    stack = new VigilStack(ctx, { ...FAST, META_API_BASE_URL: baseUrl });
    await stack.start('api');
  });
  afterAll(async () => {
    await ctx.close();
    await sandbox.close();
  });

  it('builds 134 steps across ≥ 6 slices to `verifying`: every call logged once, exactly the expected objects', async () => {
    const worker = await stack.start('worker');
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'campaign_build',
      input: campaignBuildDemoInput({ adAccountId: account(1) }),
    });
    expect(created.status).toBe(201);
    expect(created.body.totalUnits).toBe(134);
    const task = await stack.waitForTask(
      created.body.id,
      (t) => t.status === 'verifying',
      60_000,
      'verifying',
    );
    expect(task.sliceCount).toBeGreaterThanOrEqual(6);
    expect(task.completedUnits).toBe(134);
    const actions = (await ctx.redis.lrange(ctx.keys.actions(task.id), 0, -1)).map((raw) => JSON.parse(raw));
    const keyed = actions.filter((a) => a.key);
    expect(new Set(keyed.map((a) => a.key)).size).toBe(134);
    expect(keyed.filter((a) => !a.error)).toHaveLength(134);
    expect(actions[actions.length - 1].tool).toBe('finish_task');
    expect(objectsOf(account(1))).toEqual(EXPECTED);
    expect(duplicatesOf(account(1))).toEqual([]);
    await worker.stop();
  });

  it('a commit-then-drop create is reconciled: exactly one object after replay', async () => {
    await stack.start('worker');
    await stack.start('watcher');
    sandbox.setFaults({ failNext: [{ path: `act_${1_000_002}/adsets`, kind: 'commitThenDrop', times: 1 }] });
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'campaign_build',
      input: campaignBuildDemoInput({ adAccountId: account(2) }),
    });
    const task = await stack.waitForTask(
      created.body.id,
      (t) => t.status === 'completed',
      60_000,
      'completion',
    );
    expect(task.verification?.passed).toBe(true);
    expect(objectsOf(account(2))).toEqual(EXPECTED);
    expect(duplicatesOf(account(2))).toEqual([]);
    const journal = await ctx.redis.hgetall(ctx.keys.journal(task.id));
    expect(Object.values(journal).some((raw) => JSON.parse(raw).reconciled === true)).toBe(true);
    sandbox.setFaults({});
  });

  it('forgetProgress: the journal stops every duplicate write', async () => {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'campaign_build',
      input: campaignBuildDemoInput({ adAccountId: account(3) }),
      agent: { scripted: { forgetProgress: true } },
    });
    const task = await stack.waitForTask(
      created.body.id,
      (t) => t.status === 'completed',
      60_000,
      'completion',
    );
    const actions = (await ctx.redis.lrange(ctx.keys.actions(task.id), 0, -1)).map((raw) => JSON.parse(raw));
    expect(actions.filter((a) => a.deduplicated).length).toBeGreaterThan(0);
    expect(objectsOf(account(3))).toEqual(EXPECTED);
    expect(duplicatesOf(account(3))).toEqual([]);
  });

  it('falseFinishAfter: verification catches the claim, the retry names what is missing, the retry creates exactly that', async () => {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'campaign_build',
      input: campaignBuildDemoInput({ adAccountId: account(4) }),
      agent: { scripted: { falseFinishAfter: 100 } },
    });
    const task = await stack.waitForTask(
      created.body.id,
      (t) => t.status === 'completed',
      60_000,
      'completion',
    );
    expect(task.retryHistory).toEqual([
      expect.objectContaining({ attempt: 1, reason: 'failed_verification' }),
    ]);
    expect(task.retryHistory[0].detail).toMatch(/missing ads?: /);
    expect(task.retryContext?.failedChecks?.length).toBeGreaterThan(0);
    const actions = (await ctx.redis.lrange(ctx.keys.actions(task.id), 0, -1)).map((raw) => JSON.parse(raw));
    const secondAttemptWrites = actions.filter(
      (a) => a.attempt === 2 && a.key && !a.key.startsWith('verify') && !a.error,
    );
    expect(secondAttemptWrites.length).toBe(134 - 100 - 13);
    expect(secondAttemptWrites.some((a) => a.deduplicated)).toBe(false);
    expect(objectsOf(account(4))).toEqual(EXPECTED);
    expect(duplicatesOf(account(4))).toEqual([]);
  });

  it('20 SIGKILLs at random steps: every build resumes from its log and ends with no duplicate object', async () => {
    await stack.stopApps('worker');
    if (!stack.processes.some((p) => p.name === 'watcher' && p.child.exitCode === null))
      await stack.start('watcher');
    const random = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const next = random(42);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const crashAtStep = 1 + Math.floor(next() * 133);
      const body = {
        kind: 'campaign_build',
        input: campaignBuildDemoInput({ adAccountId: account(100 + i) }),
        agent: { scripted: { crashAtStep } },
      };
      ids.push((await stack.api!.post('/v1/tasks', body)).body.id);
    }
    // Six single-slot workers, each replaced as soon as it dies: every crash is a SIGKILL of the whole
    // process, and one slot per process keeps one task's crash from taking others down with it.
    let running = true;
    const keepWorkerAlive = async () => {
      while (running) {
        const worker = await stack.start('worker', { WORKER_CONCURRENCY: '1' });
        await worker.exited();
      }
    };
    const keepers = Array.from({ length: 6 }, keepWorkerAlive);
    try {
      for (const id of ids)
        await stack.waitForTask(id, (t) => t.status === 'completed', 120_000, 'completion');
    } finally {
      running = false;
      await stack.stopApps('worker');
      await Promise.allSettled(keepers);
    }
    for (let i = 0; i < 20; i++) {
      const task = (await stack.tasks.get(ids[i]))!;
      expect(task.retryHistory.some((entry) => entry.reason === 'crashed' || entry.reason === 'frozen')).toBe(
        true,
      );
      expect(objectsOf(account(100 + i))).toEqual(EXPECTED);
      expect(duplicatesOf(account(100 + i))).toEqual([]);
    }
  }, 180_000);
});
