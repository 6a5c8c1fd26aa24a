import type { HttpClient } from '@vigil/testing';
import { RedisTestContext, VigilStack } from '@vigil/testing';
import { until } from '../../support/until';

interface Run {
  fireTime: string;
  outcome: string;
  taskId: string | null;
  previousTaskId: string | null;
  reason: string | null;
}

const EVERY_2_S = '*/2 * * * * *';
/** How long the schedules run: 30 s, 15 fire times every 2 s. */
const RUN_FOR_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Schedules across two API and two Watcher processes (docs/schedules.md): one task per fire time,
 * `skip` never overlapping a running task, and a Watcher outage caught up once within catchUpMs.
 */
describe('schedules across processes', () => {
  const ctx = new RedisTestContext('schedules-e2e');
  const stack = new VigilStack(ctx, {
    SCHEDULE_MIN_INTERVAL_MS: '1000',
    HEARTBEAT_INTERVAL_MS: '200',
    STALE_AFTER_MS: '5000',
    WATCHER_INTERVAL_MS: '500',
  });
  const apis: HttpClient[] = [];
  afterAll(() => ctx.close());

  beforeAll(async () => {
    // Seven processes boot one after another: on a loaded machine one takes tens of seconds.
    stack.readyTimeoutMs = 180_000;
    for (let i = 0; i < 2; i++) {
      await stack.start('api');
      apis.push(stack.api!);
    }
    for (const app of ['watcher', 'watcher', 'worker'] as const) await stack.start(app);
  }, 900_000);

  const runsOf = async (id: string): Promise<Run[]> =>
    ((await apis[1].get(`/v1/schedules/${id}/runs?limit=100`)).body.data as Run[]).reverse();
  const create = async (api: HttpClient, body: Record<string, unknown>) => {
    const response = await api.post('/v1/schedules', { cron: EVERY_2_S, timezone: 'Europe/Berlin', ...body });
    expect(response.status).toBe(201);
    return response.body as { id: string };
  };
  /** Every 2 s between the first and the last fire time, none twice: no fire lost, none doubled. */
  const expectEveryFireTimeOnce = (runs: Run[]) => {
    const times = runs.map((run) => Date.parse(run.fireTime));
    expect(new Set(times).size).toBe(times.length);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(2_000);
  };

  it('yields exactly one task per fire time, and skip never overlaps a running task', async () => {
    const allow = await create(apis[0], {
      name: 'every-fire',
      task: { kind: 'noop', input: { steps: 1 } },
      overlap: 'allow',
    });
    // Each task runs about 4.5 s: with fires every 2 s, skip has something to skip.
    const skip = await create(apis[1], {
      name: 'no-overlap',
      task: { kind: 'noop', input: { steps: 3, stepMs: 1_500 } },
      overlap: 'skip',
    });
    await sleep(RUN_FOR_MS / 2);
    // The other API upserts the same job scheduler again (a resume of an active schedule): no fire doubles.
    expect((await apis[1].post(`/v1/schedules/${allow.id}/resume`)).status).toBe(200);
    await sleep(RUN_FOR_MS / 2);
    for (const { id } of [allow, skip]) await apis[0].post(`/v1/schedules/${id}/pause`);
    // A fire taken up just before the pause is still being recorded.
    await sleep(1_000);

    const allowRuns = await runsOf(allow.id);
    expect(allowRuns.length).toBeGreaterThanOrEqual(12);
    expectEveryFireTimeOnce(allowRuns);
    expect(allowRuns.map((run) => run.outcome)).toEqual(allowRuns.map(() => 'created'));
    const taskIds = allowRuns.map((run) => run.taskId!);
    expect(new Set(taskIds).size).toBe(taskIds.length);
    const tenantTasks = (await apis[0].get('/v1/tasks?limit=100')).body.data as {
      id: string;
      title: string;
    }[];
    const fromAllow = tenantTasks.filter((task) => task.title.startsWith('every-fire · '));
    expect(fromAllow.map((task) => task.id).sort()).toEqual([...taskIds].sort());
    // Each task is titled with its own fire time: one task per fire time, the fire time it says.
    for (const run of allowRuns)
      expect(fromAllow.find((task) => task.id === run.taskId)!.title).toBe(`every-fire · ${run.fireTime}`);

    const skipRuns = await runsOf(skip.id);
    expectEveryFireTimeOnce(skipRuns);
    const created = skipRuns.filter((run) => run.outcome === 'created');
    const skipped = skipRuns.filter((run) => run.outcome === 'skipped_overlap');
    expect(created.length).toBeGreaterThanOrEqual(2);
    expect(skipped.length).toBeGreaterThanOrEqual(2);
    expect(created.length + skipped.length).toBe(skipRuns.length);
    const tasks = await Promise.all(created.map((run) => stack.tasks.get(run.taskId!)));
    for (let i = 1; i < tasks.length; i++) {
      // The next task was created only after the one before had finished.
      expect(tasks[i - 1]!.finishedAt).not.toBeNull();
      expect(tasks[i]!.createdAt).toBeGreaterThanOrEqual(tasks[i - 1]!.finishedAt!);
    }
    for (const run of skipped)
      expect(run.reason).toMatch(/^the task of the fire before is (queued|running)$/);
  }, 300_000);

  it('runs the fires missed while no Watcher ran once when one is back, within catchUpMs', async () => {
    const schedule = await create(apis[0], {
      name: 'catch-up',
      task: { kind: 'noop', input: { steps: 1 } },
      overlap: 'allow',
      catchUpMs: 20_000,
    });
    await until(async () => (await runsOf(schedule.id)).length >= 2, 15_000, 'two fires before the outage');
    const downAt = Date.now();
    await stack.stopApps('watcher');
    await sleep(10_000);
    await stack.start('watcher');
    const upAt = Date.now();
    await until(
      async () => (await runsOf(schedule.id)).some((run) => Date.parse(run.fireTime) > upAt),
      60_000,
      'a fire after the outage',
    );
    await apis[1].post(`/v1/schedules/${schedule.id}/pause`);
    await sleep(1_000);

    const runs = await runsOf(schedule.id);
    expectEveryFireTimeOnce(runs);
    // The outage is one block of missed fire times, then the one run that caught them up.
    const firstMissed = runs.findIndex((run) => run.outcome === 'missed');
    const caughtUp = runs.findIndex((run, i) => i > firstMissed && run.outcome !== 'missed');
    const missed = runs.slice(firstMissed, caughtUp);
    expect(runs[caughtUp].outcome).toBe('created');
    // 10 s down (plus the Watchers' shutdown and boot), fires every 2 s: the missed fire times
    // start with the outage and the newest one ran, once, when a Watcher was back.
    expect(missed.length).toBeGreaterThanOrEqual(4);
    expect(Date.parse(missed[0].fireTime)).toBeGreaterThanOrEqual(downAt - 2_000);
    expect(Date.parse(runs[caughtUp].fireTime)).toBeGreaterThanOrEqual(downAt + 8_000);
    // A fire older than catchUpMs when a Watcher took the job up is missed for that reason; the
    // newer ones were caught up by the one run.
    const reasons = missed.map((run) => run.reason!);
    for (const reason of reasons)
      expect(reason).toMatch(
        new RegExp(
          `^(caught up by the one run of ${runs[caughtUp].fireTime}|no Watcher took the fire up within catchUpMs \\(20000 ms\\))$`,
        ),
      );
    expect(reasons.filter((reason) => reason.startsWith('caught up')).length).toBeGreaterThanOrEqual(3);
    const others = runs.filter((run) => !missed.includes(run));
    expect(others.map((run) => run.outcome)).toEqual(others.map(() => 'created'));
  }, 300_000);
});
