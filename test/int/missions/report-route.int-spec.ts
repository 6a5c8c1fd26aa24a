import { StepRecorder, WriteJournal, TaskLifecycle } from '@vigil/tasks';
import { HttpClient, RedisTestContext, stepAction, TEST_CLAIM } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';

/** `GET /v1/tasks/:id/report` over HTTP: Markdown built from what the runtime recorded, per tenant. */
describe('the task report route', () => {
  const ctx = new RedisTestContext('report', {
    API_KEYS: 'acme:acme-key-123,globex:globex-key-456',
    PUBLIC_BASE_URL: 'https://vigil.example.com/',
  });
  let api: InProcessApi;
  let acme: HttpClient;

  beforeAll(async () => {
    api = await InProcessApi.start(ctx);
    acme = api.client('acme-key-123');
  });

  afterAll(() => ctx.close());

  it('answers Markdown from the record: findings, writes made once, the checks still to run', async () => {
    const created = await acme.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: 2 },
      title: 'Report probe',
    });
    expect(created.status).toBe(201);
    const task = { id: created.body.id as string, tenantId: 'acme' };
    await api.app.get(TaskLifecycle).claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const recorder = api.app.get(StepRecorder);
    const screenshot = 'e'.repeat(64);
    const finding = {
      title: 'Refunds are rare',
      body: 'Under 1% of orders.',
      data: { share: 0.008 },
      artifacts: [screenshot],
      attempt: 1,
      at: 5,
    };
    await recorder.record({
      taskId: task.id,
      attempt: 1,
      action: stepAction('record_finding', null, finding, { recorded: true }),
      succeeded: true,
      finding,
      currentStep: 'record_finding',
    });
    // A write as the runtime makes one: the intent journalled first, the result with the step.
    const args = { title: 'Refund policy unclear' };
    expect(await api.app.get(WriteJournal).begin(task.id, 1, 'create_ticket:k1', args)).toEqual({
      state: 'new',
    });
    await recorder.record({
      taskId: task.id,
      attempt: 1,
      action: stepAction('create_ticket', 'create_ticket:k1', args, { id: 'T-17' }),
      succeeded: true,
      journal: { state: 'done', attempt: 1, at: Date.now(), args, result: { id: 'T-17' } },
      currentStep: 'create_ticket create_ticket:k1',
    });

    const response = await fetch(`${acme.baseUrl}/v1/tasks/${task.id}/report`, {
      headers: { authorization: 'Bearer acme-key-123' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const report = await response.text();
    expect(report).toMatch(/^# Report probe\n/);
    expect(report).toContain('**running** — running.');
    expect(report).toContain('Not verified yet. Its exit criteria: `all_steps_recorded` = 2.');
    expect(report).toContain('### 1. Refunds are rare');
    expect(report).toContain('```json\n{"share":0.008}\n```');
    // The finding's screenshot, linked absolute from PUBLIC_BASE_URL.
    expect(report).toContain(
      `Evidence: [1. artifact eeeeeeeeeeee](https://vigil.example.com/v1/tasks/${task.id}/artifacts/${screenshot})`,
    );
    expect(report).toContain('1 write in the write journal; each was made once.');
    expect(report).toContain('| 1 | create_ticket | {"title":"Refund policy unclear"} | id: T-17 | 1 | — |');
    expect(report).toContain('2 tool calls recorded');
  });

  it("is a 404 for another tenant's task, and for none at all", async () => {
    const created = await acme.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: 1 },
      title: 'Private probe',
    });
    const foreign = await acme.withKey('globex-key-456').get(`/v1/tasks/${created.body.id}/report`);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('Private probe');
    expect(foreign.body).toEqual({ statusCode: 404, error: 'Not Found', message: expect.any(String) });
    const missing = await acme.get('/v1/tasks/tsk_nothing/report');
    expect(missing.status).toBe(404);
  });
});
