import { type HttpClient, ONE_TICKET_LISTED } from '@vigil/testing';
import { ticketTenantsApi } from '../../support/ticket-tenants-api';

/**
 * Conversations over HTTP, routed by the documented rules (no model key): free text starts a
 * mission from the tenant's conversation defaults, a second one archives the first, controls and
 * status in words act on the active mission, a message id is processed once
 * (docs/conversations.md, "Conversations"). No Worker runs: tasks stay where the API leaves them.
 */
describe('POST /v1/conversations/:id/messages', () => {
  const plan = [
    { tool: 'create_ticket', args: { title: 'from a conversation' } },
    { tool: 'finish_task', args: { summary: 'filed' } },
  ];
  const setup = ticketTenantsApi('conversations', {
    tools: ['create_ticket', 'list_tickets'],
    exitCriteria: [ONE_TICKET_LISTED],
    budgetUsd: 1,
    agent: { scripted: { plan } },
  });
  let acme: HttpClient;
  let globex: HttpClient;
  beforeAll(() => ({ acme, globex } = setup));

  const say = (conversation: string, text: string, extra: Record<string, unknown> = {}, as = acme) =>
    as.post(`/v1/conversations/${conversation}/messages`, { text, ...extra });
  const task = async (id: string) => (await acme.get(`/v1/tasks/${id}`)).body;

  it('answers a plain question offline, saying no model is configured and what it can do', async () => {
    const reply = await say('c-simple', 'What can you do?');
    expect(reply.status).toBe(201);
    expect(reply.body.route).toBe('simple');
    expect(reply.body.reply).toMatch(/No model is configured/);
    expect(reply.body.reply).toMatch(/mission/);
  });

  it('starts a mission from free text with the tenant defaults, and a second archives the first', async () => {
    const first = await say('c-missions', 'Research the renewal options and file a ticket for each one');
    expect(first.body).toMatchObject({ route: 'mission' });
    const firstTask = await task(first.body.taskId);
    expect(firstTask).toMatchObject({
      kind: 'mission',
      conversationId: 'c-missions',
      budgetUsd: 1,
      exitCriteria: [ONE_TICKET_LISTED],
      input: {
        goal: 'Research the renewal options and file a ticket for each one',
        tools: ['create_ticket', 'list_tickets'],
      },
    });

    const second = await say('c-missions', 'Audit the open tickets and file a summary ticket');
    expect(second.body.route).toBe('mission');
    expect(second.body.reply).toContain(`(${first.body.taskId}) is paused and archived`);
    expect(await task(first.body.taskId)).toMatchObject({
      status: 'paused',
      statusReason: 'archived',
      archived: true,
    });
    expect((await task(second.body.taskId)).status).toBe('queued');

    // Status and controls in words act on the active mission: the second.
    const status = await say('c-missions', 'How is it going?');
    expect(status.body).toMatchObject({ route: 'tools', taskId: second.body.taskId });
    expect(status.body.reply).toMatch(/is queued/);
    const stopped = await say('c-missions', 'stop the mission');
    expect(stopped.body.taskId).toBe(second.body.taskId);
    expect((await task(second.body.taskId)).status).toBe('cancelled');

    // The archived one is resumable by its id, everything kept.
    const resumed = await say('c-missions', `resume ${first.body.taskId}`);
    expect(resumed.body).toMatchObject({ route: 'tools', taskId: first.body.taskId });
    expect((await task(first.body.taskId)).status).toBe('queued');

    const listed = await say('c-missions', 'list my tasks');
    expect(listed.body.reply).toContain(first.body.taskId);
    expect(listed.body.reply).toContain(second.body.taskId);
  });

  it('runs a new mission beside the active one when the message says so', async () => {
    const first = await say('c-alongside', 'Research the top ten ticket trackers');
    const second = await say('c-alongside', 'Compare three CRM vendors in parallel');
    expect(second.body.route).toBe('mission');
    expect((await task(first.body.taskId)).status).toBe('queued');
    expect((await task(first.body.taskId)).archived).toBe(false);
  });

  it('answers "my task" with the latest task and "my tasks" with the unfinished ones, in four languages', async () => {
    const first = await say('c-mine', 'Research the top ten ticket trackers');
    const second = await say('c-mine', 'Compare three CRM vendors in parallel');
    const third = await say('c-mine', 'Audit the open tickets in parallel');
    await acme.post(`/v1/tasks/${second.body.taskId}/stop`, {});
    // "My task" is the conversation's latest task.
    for (const text of [
      'is my task done yet?',
      'où en est ma tâche',
      '¿ya terminó mi tarea?',
      'Ist meine Aufgabe fertig?',
    ]) {
      const reply = await say('c-mine', text);
      expect(reply.body).toMatchObject({ route: 'tools', taskId: third.body.taskId });
      expect(reply.body.reply).toContain(
        `"Audit the open tickets in parallel" (${third.body.taskId}) is queued`,
      );
    }
    for (const text of [
      'how are my tasks going?',
      'où en sont mes tâches ?',
      '¿Cómo van mis tareas?',
      'wie laufen meine Aufgaben',
    ]) {
      const reply = await say('c-mine', text);
      expect(reply.body.route).toBe('tools');
      expect(reply.body.reply).toMatch(/^2 of this conversation's tasks are not finished/);
      expect(reply.body.reply).toContain(`(${first.body.taskId}) is queued`);
      expect(reply.body.reply).toContain(`(${third.body.taskId}) is queued`);
      expect(reply.body.reply).not.toContain(second.body.taskId);
    }
    // With none unfinished, the recent ones, each with its status.
    await acme.post(`/v1/tasks/${first.body.taskId}/stop`, {});
    await acme.post(`/v1/tasks/${third.body.taskId}/stop`, {});
    const ended = await say('c-mine', 'are my tasks done');
    expect(ended.body.reply).toMatch(/^None of this conversation's tasks is running; the latest 3:/);
    expect(ended.body.reply).toContain(`(${second.body.taskId}) is cancelled`);
    // Another tenant's conversation of the same id has no task of this one.
    const foreign = await say('c-mine', 'is my task done yet?', {}, globex);
    expect(foreign.body).toMatchObject({ route: 'tools' });
    expect(foreign.body.taskId).toBeUndefined();
    expect(foreign.body.reply).toMatch(/no mission yet/);
  });

  it('processes a message id once: the same reply again, no second mission', async () => {
    const text = 'Collect every ticket about renewals and file a digest';
    const once = await say('c-once', text, { messageId: 'm-1' });
    const again = await say('c-once', text, { messageId: 'm-1' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(once.body);
    const log = (await acme.get('/v1/conversations/c-once/messages')).body.data;
    expect(log.filter((line: { from: string }) => line.from === 'user')).toHaveLength(1);
  });

  it('reads the conversation back in order, replies with their routes', async () => {
    await say('c-read', 'Hello!');
    await say('c-read', 'Research our competitors and write a report on pricing');
    const log = (await acme.get('/v1/conversations/c-read/messages')).body.data;
    expect(log.map((line: { from: string; route?: string }) => [line.from, line.route])).toEqual([
      ['user', undefined],
      ['vigil', 'simple'],
      ['user', undefined],
      ['vigil', 'mission'],
    ]);
    // Another tenant sees nothing of it.
    expect((await globex.get('/v1/conversations/c-read/messages')).body.data).toEqual([]);
  });

  it('keeps conversation ids verbatim and refuses any other, never rewriting them', async () => {
    expect((await say('test:run-1', 'Hello!')).status).toBe(201);
    for (const bad of ['a%20b', 'x'.repeat(81), 'caf%C3%A9']) {
      const refused = await say(bad, 'Hello!');
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/conversation id must be/);
    }
  });

  it('marks missions of test: conversations as sandboxed, so they never deliver outside the log', async () => {
    const started = await say('test:sandboxed', 'Research the renewal options and file a ticket');
    expect((await task(started.body.taskId)).sandbox).toBe(true);
  });

  it("answers 404 for another tenant's task id, and says so when the tenant has no defaults", async () => {
    const mine = await say('c-tenant', 'Research the renewal options and file a ticket');
    const foreign = await say('c-tenant', `how is ${mine.body.taskId} doing?`, {}, globex);
    expect(foreign.status).toBe(404);
    const noDefaults = await say('c-tenant', 'Research the renewal options and file a ticket', {}, globex);
    expect(noDefaults.body.route).toBe('mission');
    expect(noDefaults.body.taskId).toBeUndefined();
    expect(noDefaults.body.reply).toMatch(/conversationDefaults/);
  });
});
