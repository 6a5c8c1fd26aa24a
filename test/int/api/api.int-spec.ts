import type { Queue } from 'bullmq';
import { StepRecorder, TaskLifecycle } from '@vigil/tasks';
import { HttpClient, RedisTestContext, stepAction, TEST_CLAIM } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';
import { campaignBuildDemoInput } from '@vigil/builtin-kinds/campaign-build/demo-input';

describe('API over HTTP', () => {
  const ctx = new RedisTestContext('api', { API_KEYS: 'acme:acme-key-123,globex:globex-key-456' });
  let api: InProcessApi;
  let acme: HttpClient;
  let globex: HttpClient;
  let queue: Queue;

  beforeAll(async () => {
    api = await InProcessApi.start(ctx);
    acme = api.client('acme-key-123');
    globex = acme.withKey('globex-key-456');
    queue = ctx.sliceQueue();
  });

  afterAll(() => ctx.close());

  const noop = (steps = 3, extra: Record<string, unknown> = {}) => ({
    kind: 'noop',
    input: { steps },
    ...extra,
  });

  it('answers /health and /version without a key', async () => {
    const health = await acme.withKey(undefined).get('/health');
    expect(health.status).toBe(200);
    expect(health.body.info.redis.status).toBe('up');
    const version = await acme.withKey(undefined).get('/version');
    expect(version.body).toEqual({
      version: '0.1.0',
      commit: expect.any(String),
      codeVersion: `0.1.0+${version.body.commit}`,
      startedAt: expect.any(String),
      // No model key in tests: every policy name runs on the scripted provider, and /version says so.
      providers: { opus: 'scripted', gemini: 'scripted' },
    });
  });

  it('describes its routes in OpenAPI at /docs-json', async () => {
    const docs = await acme.withKey(undefined).get('/docs-json');
    expect(docs.status).toBe(200);
    expect(Object.keys(docs.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/tasks',
        '/v1/tasks/{id}',
        '/v1/tasks/{id}/stop',
        '/v1/tasks/{id}/events',
        '/v1/tasks/{id}/findings',
      ]),
    );
    const findings = docs.body.paths['/v1/tasks/{id}/findings'].get;
    expect(findings.responses['200'].content['application/json'].schema.properties).toHaveProperty('data');
    expect(findings.responses['404']).toBeDefined();
  });

  it('refuses requests without a valid key with 401', async () => {
    for (const client of [acme.withKey(undefined), acme.withKey('wrong-key-000')]) {
      const response = await client.get('/v1/tasks');
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
    }
  });

  it('creates a task, enqueues its first slice, and reads it back', async () => {
    const created = await acme.post('/v1/tasks', noop(3, { title: 'three steps' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      tenantId: 'acme',
      kind: 'noop',
      title: 'three steps',
      status: 'queued',
      attempt: 1,
      model: 'opus',
      totalUnits: 3,
      completedUnits: 0,
      exitCriteria: [{ check: 'all_steps_recorded', expected: 3 }],
      retryHistory: [],
      budgetUsd: 3,
    });
    const job = await queue.getJob(`${created.body.id}-a1-s1`);
    expect(job?.data).toEqual({ taskId: created.body.id, attempt: 1, slice: 1, reason: 'created' });
    expect(job?.opts.attempts).toBe(1);
    const read = await acme.get(`/v1/tasks/${created.body.id}`);
    expect(read.status).toBe(200);
    // activeMs is the active time so far: it keeps counting between two reads of a queued task.
    const { activeMs, ...rest } = read.body;
    const { activeMs: activeAtCreation, ...created_ } = created.body;
    expect(rest).toEqual(created_);
    expect(activeMs).toBeGreaterThanOrEqual(activeAtCreation);
    expect((await acme.get(`/v1/tasks/${created.body.id}/actions`)).body).toEqual({ data: [] });
    expect((await acme.get(`/v1/tasks/${created.body.id}/messages`)).body).toEqual({ data: [] });
  });

  it("hides another tenant's task behind a 404", async () => {
    const created = await acme.post('/v1/tasks', noop());
    for (const path of ['', '/actions', '/messages', '/findings']) {
      const response = await globex.get(`/v1/tasks/${created.body.id}${path}`);
      expect(response.status).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain('acme');
    }
    expect((await globex.post(`/v1/tasks/${created.body.id}/stop`)).status).toBe(404);
    expect((await acme.get(`/v1/tasks/${created.body.id}`)).body.status).toBe('queued');
    expect((await globex.get('/v1/tasks/tsk_doesnotexist')).status).toBe(404);
  });

  it('pages the list newest first with a cursor and filters by status', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await globex.post('/v1/tasks', noop(i + 1))).body.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await globex.get(`/v1/tasks?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((task: { id: string }) => task.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    await globex.post(`/v1/tasks/${ids[1]}/stop`);
    const cancelled = await globex.get('/v1/tasks?status=cancelled');
    expect(cancelled.body.data.map((task: { id: string }) => task.id)).toEqual([ids[1]]);
    const queued = await globex.get('/v1/tasks?status=queued&limit=100');
    expect(queued.body.data).toHaveLength(4);
    expect((await globex.get('/v1/tasks?status=bogus')).status).toBe(400);
    expect((await globex.get('/v1/tasks?cursor=not-a-cursor')).status).toBe(400);
  });

  it('stops a task and answers 409 with the current status to an illegal resume', async () => {
    const created = await acme.post('/v1/tasks', noop());
    const stopped = await acme.post(`/v1/tasks/${created.body.id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.status).toBe('cancelled');
    expect(stopped.body.finishedAt).not.toBeNull();
    const resumed = await acme.post(`/v1/tasks/${created.body.id}/resume`);
    expect(resumed.status).toBe(409);
    expect(resumed.body).toMatchObject({ statusCode: 409, error: 'Conflict', currentStatus: 'cancelled' });
    expect(resumed.body.message).toContain('cancelled');
    expect((await acme.post(`/v1/tasks/${created.body.id}/pause`)).status).toBe(409);
    expect((await acme.post(`/v1/tasks/${created.body.id}/input`, { text: 'hi' })).status).toBe(409);
  });

  it('pauses and resumes under a new attempt with a new slice job', async () => {
    const created = await acme.post('/v1/tasks', noop());
    expect((await acme.post(`/v1/tasks/${created.body.id}/pause`)).body.status).toBe('paused');
    const resumed = await acme.post(`/v1/tasks/${created.body.id}/resume`);
    expect(resumed.body).toMatchObject({ status: 'queued', attempt: 2 });
    expect(await queue.getJob(`${created.body.id}-a2-s1`)).toBeDefined();
  });

  it.each([
    ['an unknown field', noop(3, { extra: true }), /property extra should not exist/],
    [
      'an unknown input field',
      { kind: 'noop', input: { steps: 3, speed: 9 } },
      /input.speed should not exist/,
    ],
    ['a wrong type', { kind: 'noop', input: { steps: 'many' } }, /input.steps must be an integer/],
    [
      'too many steps',
      { kind: 'noop', input: { steps: 100_001 } },
      /input.steps must not be greater than 100000/,
    ],
    ['zero steps', { kind: 'noop', input: { steps: 0 } }, /input.steps must not be less than 1/],
    [
      'an unknown kind',
      { kind: 'teleport', input: {} },
      /^unknown task kind "teleport"; the kinds are noop, campaign_build, mission$/,
    ],
    ['a missing input', { kind: 'noop' }, /input must be an object/],
    ['an oversized title', noop(3, { title: 'x'.repeat(201) }), /title must be shorter than or equal to 200/],
    [
      'a foreign exit check',
      noop(3, { exitCriteria: [{ check: 'ads_attached', expected: 1 }] }),
      /no check "ads_attached"/,
    ],
    ['a model outside the policy', noop(3, { agent: { policy: ['gpt'] } }), /policy/],
    [
      'a campaign build on an account without act_',
      { kind: 'campaign_build', input: { adAccountId: '12345', pageId: '1', campaigns: [] } },
      /input.adAccountId/,
    ],
    [
      'a campaign build with no ad sets',
      {
        kind: 'campaign_build',
        input: {
          adAccountId: 'act_1',
          pageId: '1',
          campaigns: [{ name: 'c', objective: 'OUTCOME_TRAFFIC', adSets: [] }],
        },
      },
      /input.campaigns\[0\].adSets/,
    ],
    [
      'a loopback webhook',
      noop(3, { notify: { webhookUrl: 'http://127.0.0.1:9/hook' } }),
      /private or loopback/,
    ],
  ])('answers 400 to %s, naming the field', async (_, body, message) => {
    const response = await acme.post('/v1/tasks', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: expect.stringMatching(message),
    });
  });

  it('answers 413 to a body over 1 MiB and 400 to malformed JSON', async () => {
    const huge = await acme.post('/v1/tasks', noop(3, { title: 'x'.repeat(1_100_000) }));
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    const malformed = await acme.post('/v1/tasks', '{"kind": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.statusCode).toBe(400);
  });

  it('honours Idempotency-Key: same body → same task, other body → 422', async () => {
    const headers = { 'idempotency-key': 'order-42' };
    const first = await acme.post('/v1/tasks', noop(7), headers);
    const again = await acme.post('/v1/tasks', noop(7), headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await acme.post('/v1/tasks', noop(8), headers);
    expect(other.status).toBe(422);
    // The same key from another tenant is another task.
    const foreign = await globex.post('/v1/tasks', noop(7), headers);
    expect(foreign.body.id).not.toBe(first.body.id);
    expect(
      (await queue.getJobs(['waiting'])).filter((job) => job.data.taskId === first.body.id),
    ).toHaveLength(1);
  });

  it('refuses an Idempotency-Key it cannot store, in the error shape of every other 400, creating nothing', async () => {
    const before = (await queue.getJobs(['waiting'])).length;
    const bad = await acme.post('/v1/tasks', noop(7), { 'idempotency-key': 'x'.repeat(256) });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Idempotency-Key must be 1-255 visible ASCII characters',
    });
    expect((await queue.getJobs(['waiting'])).length).toBe(before);
  });

  it('routes conversation messages: mission starts a task, a task id is answered from its record, the rest directly', async () => {
    const mission = await acme.post('/v1/conversations/conv-1/messages', { text: 'build it', task: noop(4) });
    expect(mission.status).toBe(201);
    expect(mission.body).toMatchObject({ route: 'mission', taskId: expect.stringMatching(/^tsk_/) });
    const task = await acme.get(`/v1/tasks/${mission.body.taskId}`);
    expect(task.body).toMatchObject({ conversationId: 'conv-1', totalUnits: 4 });
    const tools = await acme.post('/v1/conversations/conv-1/messages', {
      text: `how is ${mission.body.taskId} doing?`,
    });
    expect(tools.body).toMatchObject({ route: 'tools', taskId: mission.body.taskId });
    expect(tools.body.reply).toMatch(/is queued: 0 of 4 steps done/);
    const simple = await acme.post('/v1/conversations/conv-1/messages', { text: 'hello' });
    expect(simple.body).toMatchObject({ route: 'simple', reply: expect.any(String) });
    expect(
      (await globex.post('/v1/conversations/c/messages', { text: `status of ${mission.body.taskId}` }))
        .status,
    ).toBe(404);
    expect((await acme.post('/v1/conversations/c/messages', { text: '' })).status).toBe(400);
  });
  describe('exit criteria a caller cannot weaken', () => {
    const twenty = (exitCriteria: unknown) => ({
      kind: 'noop',
      input: { steps: 20 },
      exitCriteria,
      agent: { scripted: { falseFinishAfter: 0 } },
    });

    it("keeps the kind's own criterion when the caller sends an empty list", async () => {
      const created = await acme.post('/v1/tasks', twenty([]));
      expect(created.status).toBe(201);
      expect(created.body.exitCriteria).toEqual([{ check: 'all_steps_recorded', expected: 20 }]);
      expect((await acme.get(`/v1/tasks/${created.body.id}`)).body.exitCriteria).toEqual([
        { check: 'all_steps_recorded', expected: 20 },
      ]);
    });

    it.each([
      [
        'a lowered count',
        [{ check: 'all_steps_recorded', expected: 3 }],
        /^exitCriteria\[0\] \(all_steps_recorded\): expected must be an integer ≥ 20 /,
      ],
      [
        'a wrong type',
        [{ check: 'all_steps_recorded', expected: 'abc' }],
        /^exitCriteria\[0\] \(all_steps_recorded\): expected must be an integer ≥ 20 /,
      ],
      [
        'a count the input cannot reach',
        [{ check: 'all_steps_recorded', expected: 21 }],
        /expected must be at most 20/,
      ],
      [
        'an unknown check',
        [{ check: 'teleported', expected: 1 }],
        /^exitCriteria\[0\] \(teleported\): noop has no check "teleported"; its checks are all_steps_recorded$/,
      ],
      [
        'arguments to a check that takes none',
        [{ check: 'all_steps_recorded', expected: 20, args: { x: 1 } }],
        /args must be absent/,
      ],
    ])(
      'refuses %s at creation with a 400 naming the criterion, creating nothing',
      async (_, criteria, message) => {
        const before = (await queue.getJobs(['waiting'])).length;
        const response = await acme.post('/v1/tasks', twenty(criteria));
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          statusCode: 400,
          error: 'Bad Request',
          message: expect.stringMatching(message),
        });
        expect((await queue.getJobs(['waiting'])).length).toBe(before);
      },
    );

    it('names the criterion by its place in a campaign build', async () => {
      const response = await acme.post('/v1/tasks', {
        kind: 'campaign_build',
        input: campaignBuildDemoInput(),
        exitCriteria: [
          { check: 'campaigns_exist', expected: 1 },
          { check: 'ads_attached', expected: 35 },
          { check: 'all_objects_verified', expected: false },
        ],
      });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(
        /exitCriteria\[1\] \(ads_attached\): expected must be an integer ≥ 36 /,
      );
      expect(response.body.message).toMatch(
        /exitCriteria\[2\] \(all_objects_verified\): expected must be true /,
      );
    });

    it('refuses 40,000 criteria with one short 400', async () => {
      const response = await acme.post('/v1/tasks', twenty(Array.from({ length: 40_000 }, () => ({}))));
      expect(response.status).toBe(400);
      expect(response.body.message).toBe('exitCriteria must contain no more than 32 elements');
    });
  });

  it('lists the findings the agent recorded, paged, for its own tenant only', async () => {
    const created = await acme.post('/v1/tasks', noop(3));
    const task = { id: created.body.id as string, tenantId: 'acme' };
    await api.app.get(TaskLifecycle).claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const recorder = api.app.get(StepRecorder);
    const findings = [
      { title: 'Churn is seasonal', body: 'Cancellations peak in January.', data: { month: 1 } },
      { title: 'Refunds are rare', body: 'Under 1% of orders.' },
    ];
    for (const [index, finding] of findings.entries()) {
      await recorder.record({
        taskId: task.id,
        attempt: 1,
        action: stepAction('record_finding', null, finding, { recorded: true }),
        succeeded: true,
        finding,
        currentStep: `finding ${index + 1}`,
      });
    }
    const all = await acme.get(`/v1/tasks/${task.id}/findings`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ data: findings });
    const first = await acme.get(`/v1/tasks/${task.id}/findings?limit=1`);
    expect(first.body).toEqual({ data: [findings[0]], nextCursor: '1' });
    const second = await acme.get(`/v1/tasks/${task.id}/findings?limit=1&cursor=1`);
    expect(second.body).toEqual({ data: [findings[1]] });
    const foreign = await globex.get(`/v1/tasks/${task.id}/findings`);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('Churn');
  });

  describe('a body not sent as JSON', () => {
    const body = JSON.stringify(noop(3));
    const send = (headers: Record<string, string>, payload: string | Blob = body) =>
      fetch(`${acme.baseUrl}/v1/tasks`, {
        method: 'POST',
        headers: { authorization: 'Bearer acme-key-123', ...headers },
        body: payload,
      });

    it.each([
      [
        'a form',
        { 'content-type': 'application/x-www-form-urlencoded' },
        'Content-Type: application/x-www-form-urlencoded',
      ],
      ['plain text', { 'content-type': 'text/plain' }, 'Content-Type: text/plain'],
    ])('as %s answers 415 saying to send Content-Type: application/json', async (_, headers, got) => {
      const response = await send(headers);
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({
        statusCode: 415,
        error: 'Unsupported Media Type',
        message: `send the request body as JSON with Content-Type: application/json (got ${got})`,
      });
    });

    it('without any Content-Type answers 415 too; JSON with a charset is accepted', async () => {
      const bare = await send({}, new Blob([body]));
      expect(bare.status).toBe(415);
      expect(((await bare.json()) as { message: string }).message).toMatch(
        /Content-Type: application\/json \(got no Content-Type\)$/,
      );
      expect((await send({ 'content-type': 'application/json; charset=utf-8' })).status).toBe(201);
    });
  });

  describe('illegal controls, in words', () => {
    it('answers each control on a finished task with 409, the current status and what it needs', async () => {
      const created = await acme.post('/v1/tasks', noop());
      await acme.post(`/v1/tasks/${created.body.id}/stop`);
      const expected: [string, string][] = [
        ['stop', 'the task is cancelled; only a task that has not finished can be stopped'],
        ['pause', 'the task is cancelled; only queued, running, waiting or retrying tasks can be paused'],
        ['resume', 'the task is cancelled; only paused tasks can be resumed'],
        ['input', "the task is cancelled; only a task waiting for a person's answer takes input"],
      ];
      for (const [control, message] of expected) {
        const response = await acme.post(
          `/v1/tasks/${created.body.id}/${control}`,
          control === 'input' ? { text: 'hi' } : undefined,
        );
        expect(response.status).toBe(409);
        expect(response.body).toEqual({
          statusCode: 409,
          error: 'Conflict',
          message,
          currentStatus: 'cancelled',
        });
      }
    });

    it('says what a live task needs before it can be resumed or paused again', async () => {
      const created = await acme.post('/v1/tasks', noop());
      const resumed = await acme.post(`/v1/tasks/${created.body.id}/resume`);
      expect(resumed.body).toMatchObject({
        message: 'the task is queued; only paused tasks can be resumed',
        currentStatus: 'queued',
      });
      await acme.post(`/v1/tasks/${created.body.id}/pause`);
      const again = await acme.post(`/v1/tasks/${created.body.id}/pause`);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ message: 'the task is already paused', currentStatus: 'paused' });
    });
  });

  describe('bounded error bodies', () => {
    const campaign = (campaigns: unknown[]) => ({
      kind: 'campaign_build',
      input: { adAccountId: 'act_1', pageId: '1', campaigns },
    });
    // Messages are joined with '; ' and one may hold '; ' itself: each starts with the field it names.
    const messagesOf = (message: string) =>
      message.split(/; (?=input\.|exitCriteria|further problems are not listed)/);

    it('answers 100,000 ad sets (a 300 KB body) with a short 400', async () => {
      const body = campaign([
        { name: 'c', objective: 'OUTCOME_TRAFFIC', adSets: Array.from({ length: 100_000 }, () => ({})) },
      ]);
      expect(JSON.stringify(body).length).toBeGreaterThan(300_000);
      const response = await acme.post('/v1/tasks', body);
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body).length).toBeLessThan(4096);
      expect(response.body.message).toBe('input.campaigns[0].adSets must contain no more than 50 elements');
    });

    it('reports at most 20 of thousands of problems, in under 4 KB', async () => {
      const body = campaign(
        Array.from({ length: 10 }, (_, c) => ({
          name: `campaign ${c} ${'x'.repeat(150)}`,
          objective: 'OUTCOME_TRAFFIC',
          adSets: Array.from({ length: 50 }, () => ({
            name: 'same '.repeat(40),
            ads: [{ name: 'a'.repeat(190) }],
          })),
        })),
      );
      const response = await acme.post('/v1/tasks', body);
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body).length).toBeLessThan(4096);
      const messages = messagesOf(response.body.message);
      expect(messages).toHaveLength(20);
      expect(messages[0]).toMatch(/^input\.campaigns/);
      expect(messages[19]).toBe('further problems are not listed');
    });

    it('bounds the DTO validation messages too', async () => {
      const response = await acme.post(
        '/v1/tasks',
        noop(3, { exitCriteria: Array.from({ length: 32 }, () => ({})) }),
      );
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body).length).toBeLessThan(4096);
      expect(messagesOf(response.body.message)).toHaveLength(20);
      expect(response.body.message).toMatch(/^exitCriteria\.0\./);
    });
  });

  describe('JSON nested 20,000 deep', () => {
    const nest = (depth: number, open: string, close: string, inner: string) =>
      `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

    it.each([
      ['in input', `{"kind":"noop","input":${nest(20_000, '{"a":', '}', '{}')}}`],
      ['in another field', `{"kind":"noop","input":{"steps":1},"title":${nest(20_000, '[', ']', '1')}}`],
      ['in a control body', nest(20_000, '{"text":', '}', '"hi"')],
    ])('%s is a 400 saying so, not a 500', async (where, body) => {
      const path = where === 'in a control body' ? '/v1/tasks/tsk_doesnotexist/input' : '/v1/tasks';
      const response = await acme.post(path, body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message:
          'the request body is nested too deeply: at most 64 levels of objects and arrays are accepted',
      });
    });

    it('accepts ordinary nesting', async () => {
      const targeting = {
        geo_locations: { countries: ['US'] },
        flexible_spec: [{ interests: [{ id: '1', name: 'x' }] }],
      };
      const input = campaignBuildDemoInput({ adSets: 1, adsPerSet: 1 });
      input.campaigns[0].adSets[0].targeting = targeting;
      expect((await acme.post('/v1/tasks', { kind: 'campaign_build', input })).status).toBe(201);
    });
  });
});
