import type { RetryEntry, StructuredFailure } from '@vigil/tasks';
import { RedisTestContext, VigilStack } from '@vigil/testing';
import { MissionWorld, TENANT } from '../../support/mission-fixture';

const METRICS_TOKEN = 'loops-metrics-token-0001';

/**
 * Loops are stalls, through the built apps (docs/missions.md, "Loops"): a scripted mission that
 * reads the real server-memory's graph with the same arguments again and again ends each attempt
 * as `looping` at LOOP_REPEAT_LIMIT, is retried on each model of the policy, and fails with a report
 * that names the loop; the Watcher counts each in vigil_recoveries_total.
 */
describe('a mission that repeats one call', () => {
  const ctx = new RedisTestContext('missions-loops');
  const world = new MissionWorld();
  let stack: VigilStack;
  let watcherPort: number;

  beforeAll(async () => {
    await world.start(['memory']);
    stack = new VigilStack(ctx, {
      API_KEYS: `${TENANT}:test-key-0001`,
      ...world.env(),
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '3000',
      WATCHER_INTERVAL_MS: '300',
      USER_UPDATE_INTERVAL_MS: '60000',
      RETRY_POLICY: 'opus,gemini',
      SLICE_MAX_STEPS: '3',
      LOOP_REPEAT_LIMIT: '4',
      METRICS_TOKEN,
    });
    await stack.start('api');
    await stack.start('worker');
    watcherPort = (await stack.start('watcher')).port!;
  });
  afterAll(async () => {
    await stack.stopAll();
    await world.close();
    await ctx.close();
  });

  it('ends every attempt as looping, retries on the policy, then fails naming the loop', async () => {
    const read = { tool: 'memory.open_nodes', args: { names: ['Quickstart'] } };
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'mission',
      title: 'Watch the quickstart entity',
      input: { goal: 'Find out what the quickstart entity says.', tools: ['memory'] },
      // The entity is never created: the check could only fail, had the mission claimed it was done.
      exitCriteria: [world.criteria()[1]],
      agent: {
        scripted: {
          plan: [
            ...Array.from({ length: 8 }, () => read),
            { tool: 'finish_task', args: { summary: 'Read.' } },
          ],
        },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const failed = await stack.waitForTask(
      id,
      (t) => ['failed', 'completed'].includes(t.status),
      60_000,
      'the end',
    );
    expect(failed.status).toBe('failed');
    const detail =
      'memory__open_nodes was called 4 times with the same arguments {"names":["Quickstart"]} (LOOP_REPEAT_LIMIT 4)';
    const history: RetryEntry[] = failed.retryHistory;
    expect(history.map((entry) => [entry.model, entry.reason, entry.detail])).toEqual([
      ['opus', 'looping', detail],
      ['opus', 'looping', detail],
      ['gemini', 'looping', detail],
    ]);
    const failure = failed.failure as StructuredFailure;
    expect(failure.reason).toBe('policy_exhausted');
    expect(failure.detail).toBe(
      `all 2 retries of the policy failed; the last attempt ended looping: ${detail}`,
    );
    // Four calls in each attempt, none more.
    const actions = (await ctx.redis.lrange(ctx.keys.actions(id), 0, -1)).map(
      (raw) => JSON.parse(raw) as { attempt: number; tool: string },
    );
    expect([1, 2, 3].map((attempt) => actions.filter((a) => a.attempt === attempt).length)).toEqual([
      4, 4, 4,
    ]);

    const metrics = await (
      await fetch(`http://127.0.0.1:${watcherPort}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      })
    ).text();
    expect(metrics).toMatch(/vigil_recoveries_total\{reason="looping"[^}]*\} 3\n/);
  }, 90_000);
});
