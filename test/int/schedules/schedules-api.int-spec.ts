import type { Queue } from 'bullmq';
import { FireScheduleUseCase, fireIdempotencyKey } from '@vigil/schedules';
import { HttpClient, RedisTestContext } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';

const noop = { kind: 'noop', input: { steps: 1 } };
const body = (extra: Record<string, unknown> = {}) => ({
  name: 'nightly',
  cron: '0 3 * * *',
  timezone: 'Europe/Berlin',
  task: noop,
  overlap: 'skip',
  ...extra,
});

describe('/v1/schedules', () => {
  const ctx = new RedisTestContext('schedules-api', {
    API_KEYS: 'acme:acme-key-123,globex:globex-key-456',
    SCHEDULES_PER_TENANT: '4',
    SCHEDULE_MIN_INTERVAL_MS: '2000',
  });
  let api: InProcessApi;
  let acme: HttpClient;
  let globex: HttpClient;
  let schedulers: Queue;

  beforeAll(async () => {
    api = await InProcessApi.start(ctx);
    acme = api.client('acme-key-123');
    globex = api.client('globex-key-456');
    schedulers = ctx.scheduleQueue();
  });
  afterAll(() => ctx.close());

  const remove = (client: HttpClient, id: string) => client.request('DELETE', `/v1/schedules/${id}`);

  it('creates a schedule with its BullMQ job scheduler (cron and time zone) and reads it back', async () => {
    const created = await acme.post('/v1/schedules', body({ catchUpMs: 20_000 }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^sch_[0-9a-f]{24}$/),
      tenantId: 'acme',
      name: 'nightly',
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      overlap: 'skip',
      catchUpMs: 20_000,
      state: 'active',
      task: noop,
      lastOutcome: null,
    });
    const scheduler = await schedulers.getJobScheduler(created.body.id);
    expect(scheduler).toMatchObject({ pattern: '0 3 * * *', tz: 'Europe/Berlin' });
    // 03:00 in Berlin is 01:00 or 02:00 UTC, whatever the season.
    expect(new Date(created.body.nextFireAt).getUTCHours()).toBeGreaterThanOrEqual(1);
    expect(new Date(created.body.nextFireAt).getUTCHours()).toBeLessThanOrEqual(2);
    const read = await acme.get(`/v1/schedules/${created.body.id}`);
    expect(read.body).toEqual(created.body);
    expect((await remove(acme, created.body.id)).status).toBe(204);
    expect(await schedulers.getJobScheduler(created.body.id)).toBeUndefined();
    expect((await acme.get(`/v1/schedules/${created.body.id}`)).status).toBe(404);
  });

  it.each([
    [{ cron: 'every day' }, /^cron must have 5 fields/],
    [{ cron: '61 * * * *' }, /^cron "61 \* \* \* \*" is not a cron expression/],
    [{ timezone: 'Mars/Olympus' }, /^timezone "Mars\/Olympus" is not an IANA time zone/],
    [{ overlap: 'queue' }, /^overlap must be one of the following values: skip, allow, cancel_previous/],
    [{ task: { kind: 'noop' } }, /task\.input/],
    [{ task: { kind: 'noop', input: { steps: 'three' } } }, /^task: /],
    [{ task: { ...noop, parentId: 'tsk_x' } }, /^task\.parentId/],
    [{ catchUpMs: 10 }, /^catchUpMs must not be less than 1000/],
    [{ cron: '* * * * * *' }, /fires 1 s apart at the shortest; SCHEDULE_MIN_INTERVAL_MS allows 2 s/],
  ])('refuses %j with a 400 that names the field', async (change, message) => {
    const refused = await acme.post('/v1/schedules', body(change));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(message);
  });

  it('keeps each tenant to its own schedules: another tenant’s is a 404 for every route', async () => {
    const mine = (await acme.post('/v1/schedules', body({ name: 'acme only' }))).body;
    for (const [method, path] of [
      ['GET', ''],
      ['GET', '/runs'],
      ['POST', '/pause'],
      ['POST', '/resume'],
      ['POST', '/trigger'],
      ['DELETE', ''],
    ]) {
      const response = await globex.request(method, `/v1/schedules/${mine.id}${path}`);
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
    }
    expect((await globex.get('/v1/schedules')).body).toEqual({ data: [] });
    expect((await acme.get('/v1/schedules')).body.data.map((s: { id: string }) => s.id)).toContain(mine.id);
    await remove(acme, mine.id);
  });

  it('bounds a tenant’s schedules at SCHEDULES_PER_TENANT with a 429, and pages them', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await acme.post('/v1/schedules', body({ name: `s${i}` }))).body.id);
    const fifth = await acme.post('/v1/schedules', body({ name: 's4' }));
    expect(fifth.status).toBe(429);
    expect(fifth.body.message).toMatch(/has 4 schedules and may have at most 4 \(SCHEDULES_PER_TENANT\)/);
    expect((await globex.post('/v1/schedules', body())).status).toBe(201);
    const first = await acme.get('/v1/schedules?limit=3');
    expect(first.body.data.map((s: { name: string }) => s.name)).toEqual(['s3', 's2', 's1']);
    const second = await acme.get(`/v1/schedules?limit=3&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ data: [expect.objectContaining({ name: 's0' })] });
    for (const id of ids) await remove(acme, id);
    expect((await acme.post('/v1/schedules', body())).status).toBe(201);
  });

  it('pauses (no job scheduler, no next fire) and resumes (the job scheduler back)', async () => {
    const schedule = (await acme.post('/v1/schedules', body({ name: 'pausable' }))).body;
    const paused = await acme.post(`/v1/schedules/${schedule.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ state: 'paused', nextFireAt: null });
    expect(await schedulers.getJobScheduler(schedule.id)).toBeUndefined();
    // A fire job that was already due finds the schedule paused and creates nothing.
    const fire = api.app.get(FireScheduleUseCase);
    expect(await fire.fire('acme', schedule.id, Date.now())).toEqual({ state: 'paused' });
    const resumed = await acme.post(`/v1/schedules/${schedule.id}/resume`);
    expect(resumed.body).toMatchObject({ state: 'active', nextFireAt: schedule.nextFireAt });
    expect(await schedulers.getJobScheduler(schedule.id)).toMatchObject({ pattern: '0 3 * * *' });
    await remove(acme, schedule.id);
  });

  it('triggers a fire now: a task through the create path, then skip while it is unfinished', async () => {
    const schedule = (await acme.post('/v1/schedules', body({ name: 'triggered' }))).body;
    const first = await acme.post(`/v1/schedules/${schedule.id}/trigger`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      trigger: 'manual',
      outcome: 'created',
      taskId: expect.stringMatching(/^tsk_/),
    });
    const task = await acme.get(`/v1/tasks/${first.body.taskId}`);
    expect(task.body).toMatchObject({ tenantId: 'acme', kind: 'noop', status: 'queued' });
    expect(task.body.title).toMatch(/^triggered · \d{4}-/);
    const second = await acme.post(`/v1/schedules/${schedule.id}/trigger`);
    expect(second.body).toMatchObject({
      outcome: 'skipped_overlap',
      taskId: null,
      previousTaskId: first.body.taskId,
      reason: 'the task of the fire before is queued',
    });
    const runs = await acme.get(`/v1/schedules/${schedule.id}/runs`);
    expect(runs.body.data.map((run: { outcome: string }) => run.outcome)).toEqual([
      'skipped_overlap',
      'created',
    ]);
    expect((await acme.get(`/v1/schedules/${schedule.id}`)).body).toMatchObject({
      lastOutcome: 'skipped_overlap',
      lastTaskId: first.body.taskId,
    });
    await remove(acme, schedule.id);
  });

  it('cancel_previous stops the unfinished task of the fire before, then creates', async () => {
    const schedule = (
      await acme.post('/v1/schedules', body({ name: 'replacing', overlap: 'cancel_previous' }))
    ).body;
    const first = (await acme.post(`/v1/schedules/${schedule.id}/trigger`)).body;
    const second = (await acme.post(`/v1/schedules/${schedule.id}/trigger`)).body;
    expect(second).toMatchObject({ outcome: 'cancelled_previous', previousTaskId: first.taskId });
    expect(second.taskId).not.toBe(first.taskId);
    expect((await acme.get(`/v1/tasks/${first.taskId}`)).body.status).toBe('cancelled');
    expect((await acme.get(`/v1/tasks/${second.taskId}`)).body.status).toBe('queued');
    await remove(acme, schedule.id);
  });

  it('decides a fire time once: a second Watcher taking the same fire up gets the same run and task', async () => {
    const schedule = (await acme.post('/v1/schedules', body({ name: 'once', overlap: 'allow' }))).body;
    const fire = api.app.get(FireScheduleUseCase);
    const fireTime = Date.now() - 100;
    const [a, b] = await Promise.all([
      fire.fire('acme', schedule.id, fireTime),
      fire.fire('acme', schedule.id, fireTime),
    ]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ state: 'decided', run: { outcome: 'created', fireTime } });
    const runs = (await acme.get(`/v1/schedules/${schedule.id}/runs`)).body.data;
    expect(runs).toHaveLength(1);
    // The same fire time is the same Idempotency-Key, whoever creates it.
    const replay = await acme.post(
      '/v1/tasks',
      { ...noop, title: `once · ${new Date(fireTime).toISOString()}` },
      {
        'idempotency-key': fireIdempotencyKey(schedule.id, fireTime),
      },
    );
    expect(replay.body.id).toBe(runs[0].taskId);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await remove(acme, schedule.id);
  });

  it('catches up: of the fires missed within catchUpMs the newest runs once, the older are recorded missed', async () => {
    const schedule = (
      await acme.post(
        '/v1/schedules',
        body({ name: 'catch-up', cron: '*/2 * * * * *', overlap: 'allow', catchUpMs: 5_000 }),
      )
    ).body;
    await acme.post(`/v1/schedules/${schedule.id}/pause`);
    const fire = api.app.get(FireScheduleUseCase);
    const now = Math.floor(Date.now() / 2_000) * 2_000 + 500;
    // The job of a fire 10 s ago is taken up only now, as after a Watcher outage; paused is resumed first.
    await acme.post(`/v1/schedules/${schedule.id}/resume`);
    await schedulers.removeJobScheduler(schedule.id);
    const result = await fire.fire('acme', schedule.id, now - 10_500, now);
    expect(result).toMatchObject({ state: 'decided', run: { outcome: 'created', fireTime: now - 500 } });
    const runs = (await acme.get(`/v1/schedules/${schedule.id}/runs`)).body.data as {
      outcome: string;
      reason: string;
    }[];
    expect(runs.map((run) => run.outcome)).toEqual([
      'created',
      'missed',
      'missed',
      'missed',
      'missed',
      'missed',
    ]);
    expect(
      runs.filter((run) => run.reason?.startsWith('no Watcher took the fire up within catchUpMs')),
    ).toHaveLength(3);
    expect(runs.filter((run) => run.reason?.startsWith('caught up by the one run'))).toHaveLength(2);
    await remove(acme, schedule.id);
  });
});

describe('a schedule’s fires under the create limits', () => {
  const ctx = new RedisTestContext('schedules-limits', {
    API_KEYS: 'acme:acme-key-123',
    RATE_LIMIT_PER_MINUTE: '3',
    MAX_ACTIVE_TASKS_PER_TENANT: '2',
  });
  let acme: HttpClient;

  beforeAll(async () => {
    acme = (await InProcessApi.start(ctx)).client('acme-key-123');
  });
  afterAll(() => ctx.close());

  it('counts every fire against the tenant’s active tasks and its POST /v1/tasks rate, and records a refusal with its reason', async () => {
    const schedule = (await acme.post('/v1/schedules', body({ overlap: 'allow' }))).body;
    const created = (await acme.post('/v1/tasks', noop)).body;
    expect((await acme.post(`/v1/schedules/${schedule.id}/trigger`)).body.outcome).toBe('created');
    const overActive = (await acme.post(`/v1/schedules/${schedule.id}/trigger`)).body;
    expect(overActive).toMatchObject({ outcome: 'refused', taskId: null });
    expect(overActive.reason).toMatch(
      /has 2 active tasks and may have at most 2 at once \(MAX_ACTIVE_TASKS_PER_TENANT\)/,
    );
    await acme.post(`/v1/tasks/${created.id}/stop`);
    // The window of POST /v1/tasks holds 3: one create and two fires so far.
    const overRate = (await acme.post(`/v1/schedules/${schedule.id}/trigger`)).body;
    expect(overRate).toMatchObject({ outcome: 'refused', taskId: null });
    expect(overRate.reason).toMatch(
      /^rate limit reached: at most 3 task creations per minute per tenant \(RATE_LIMIT_PER_MINUTE\)/,
    );
    expect((await acme.post('/v1/tasks', noop)).status).toBe(429);
    const runs = (await acme.get(`/v1/schedules/${schedule.id}/runs`)).body.data;
    expect(runs.map((run: { outcome: string }) => run.outcome)).toEqual(['refused', 'refused', 'created']);
  });
});
