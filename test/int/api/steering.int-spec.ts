import { TaskContextStore } from '@vigil/tasks';
import { type HttpClient, ONE_TICKET_LISTED } from '@vigil/testing';
import { ticketTenantsApi } from '../../support/ticket-tenants-api';

/**
 * `POST /v1/tasks/:id/steer` through the real API module (docs/api.md, "Steering"): recorded once
 * (steer-task.lua), announced as `task.steered`, in the report, refused on a finished task, another
 * tenant's task unseen; a paused task's slice reads it when it resumes; a conversation's
 * correction of its running mission steers it. No Worker runs.
 */
describe('steering a task', () => {
  const setup = ticketTenantsApi('steering', {
    tools: ['create_ticket', 'list_tickets'],
    exitCriteria: [ONE_TICKET_LISTED],
    agent: { scripted: { plan: [{ tool: 'finish_task', args: { summary: 'done' } }] } },
  });
  const { ctx } = setup;
  let acme: HttpClient;
  let globex: HttpClient;
  beforeAll(() => ({ acme, globex } = setup));

  const newTask = async () =>
    (await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 3 } })).body.id as string;
  const steer = (id: string, text: string, headers?: Record<string, string>, as = acme) =>
    as.post(`/v1/tasks/${id}/steer`, { text }, headers);
  const steeredEvents = async (id: string) =>
    (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
      .map(([, fields]) => Object.fromEntries(fields.flatMap((v, i) => (i % 2 ? [] : [[v, fields[i + 1]]]))))
      .filter((event) => event.type === 'task.steered' && event.taskId === id);

  it('records the instruction, announces task.steered once, and records a repeated key once', async () => {
    const id = await newTask();
    const given = await steer(id, '  Skip the EU sites.  ', { 'Idempotency-Key': 'steer-1' });
    expect(given.status).toBe(202);
    expect(given.body).toEqual({
      id: expect.stringMatching(/^st_/),
      taskId: id,
      text: 'Skip the EU sites.',
      at: expect.any(String),
      afterStep: 0,
      taskStatus: 'queued',
      applies: 'next_model_call',
    });
    const again = await steer(id, 'Skip the EU sites.', { 'Idempotency-Key': 'steer-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(given.body);
    expect((await steer(id, 'Something else', { 'Idempotency-Key': 'steer-1' })).status).toBe(422);

    const events = await steeredEvents(id);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].data)).toEqual({
      id: given.body.id,
      text: 'Skip the EU sites.',
      afterStep: 0,
    });
    expect(await ctx.redis.hget(ctx.keys.task(id), 'steerCount')).toBe('1');
  });

  it('refuses an empty or oversized instruction with a 400', async () => {
    const id = await newTask();
    expect((await steer(id, '   ')).status).toBe(400);
    expect((await steer(id, 'x'.repeat(2001))).status).toBe(400);
    expect(await ctx.redis.exists(ctx.keys.steering(id))).toBe(0);
  });

  it("answers 404 for another tenant's task and records nothing", async () => {
    const id = await newTask();
    const refused = await steer(id, 'Skip the EU sites.', undefined, globex);
    expect(refused.status).toBe(404);
    expect(await ctx.redis.exists(ctx.keys.steering(id))).toBe(0);
    expect(await steeredEvents(id)).toEqual([]);
  });

  it('answers 409 with the current status on a finished task', async () => {
    const id = await newTask();
    await acme.post(`/v1/tasks/${id}/stop`);
    const refused = await steer(id, 'Skip the EU sites.');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ currentStatus: 'cancelled' });
    expect(refused.body.message).toMatch(
      /the task is cancelled; only a task that has not finished can be steered/,
    );
    expect(await steeredEvents(id)).toEqual([]);
  });

  it('takes an instruction on a paused task, which its next slice reads when it resumes', async () => {
    const id = await newTask();
    await acme.post(`/v1/tasks/${id}/pause`);
    const given = await steer(id, 'Only check the pricing page.');
    expect(given.body).toMatchObject({ taskStatus: 'paused', applies: 'on_resume' });
    expect((await acme.post(`/v1/tasks/${id}/resume`)).body.status).toBe('queued');
    const loaded = await new TaskContextStore(ctx.redis, ctx.keys).loadForSlice(id);
    expect(loaded.steering.map((s) => [s.text, s.status])).toEqual([
      ['Only check the pricing page.', 'paused'],
    ]);
  });

  it('lists every instruction in the report, under "Instructions given while it ran"', async () => {
    const id = await newTask();
    await steer(id, 'Skip the EU sites.');
    await acme.post(`/v1/tasks/${id}/pause`);
    await steer(id, 'Only check | the pricing page.');
    const report = (await acme.get(`/v1/tasks/${id}/report`)).body as string;
    expect(report).toContain('## Instructions given while it ran');
    expect(report).toMatch(/\| 0 \| queued \| Skip the EU sites\. \|/);
    expect(report).toMatch(/\| 0 \| paused \(applied on resume\) \| Only check \\\| the pricing page\. \|/);
    const plain = (await acme.get(`/v1/tasks/${await newTask()}/report`)).body as string;
    expect(plain).not.toContain('Instructions given while it ran');
  });

  it("steers a conversation's running mission with a correction, and routes it as usual without one", async () => {
    const say = (conversation: string, text: string) =>
      acme.post(`/v1/conversations/${conversation}/messages`, { text, messageId: `m-${text.length}` });
    const started = await say('c-steer', 'Research the renewal options and file a ticket for each one');
    expect(started.body.route).toBe('mission');
    const taskId = started.body.taskId as string;

    const corrected = await say('c-steer', 'Actually, skip the EU sites');
    expect(corrected.body).toMatchObject({ route: 'tools', taskId });
    expect(corrected.body.reply).toMatch(
      /Passed your instruction to .*the agent reads it at its next model call/,
    );
    expect(await ctx.redis.hget(ctx.keys.task(taskId), 'steerCount')).toBe('1');
    const steered = await steeredEvents(taskId);
    expect(JSON.parse(steered[0].data).text).toBe('Actually, skip the EU sites');

    // No mission in this conversation: the same words are not an instruction to anything.
    const elsewhere = await say('c-empty', 'Actually, skip the EU sites');
    expect(elsewhere.body.route).toBe('simple');
  });
});
