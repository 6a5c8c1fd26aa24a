import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActionRecord } from '@vigil/tasks';
import { catalogFile, RedisTestContext, unservedStatusPage, VigilStack } from '@vigil/testing';

/**
 * Conversations end to end, with the built apps as processes and no model key: free text starts a
 * mission from the tenant's defaults (a scripted plan that asks a person one question), the
 * question's link opens twice and takes one answer, a second mission archives the first, which
 * later resumes and completes; a question nobody answers fails the task when its wait runs out
 * (docs/conversations.md, "Conversations" and "Human hand-offs").
 */
describe('conversations, missions and human hand-offs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-conversations-e2e-'));
  const plan = [
    { tool: 'record_finding', args: { title: 'Renewal options listed', body: 'Three options.' } },
    { tool: 'message_user', args: { text: 'Three renewal options found so far.' } },
    { tool: 'request_human_input', args: { question: 'Which region should go first?' } },
    { tool: 'record_finding', args: { title: 'Region chosen', body: 'As the person answered.' } },
    { tool: 'finish_task', args: { summary: 'Listed the options and picked a region.' } },
  ];
  const catalogPath = catalogFile(
    {
      mcpServers: {},
      httpTools: { status_page: unservedStatusPage() },
      tenants: {
        acme: {
          allow: ['status_page'],
          conversationDefaults: {
            tools: ['status_page'],
            evidence: 'findings_only',
            exitCriteria: [{ check: 'findings_count', expected: 2 }],
            agent: { scripted: { plan } },
          },
        },
      },
    },
    dir,
  );
  const ctx = new RedisTestContext('conversations-e2e');
  let stack: VigilStack;

  beforeAll(async () => {
    stack = new VigilStack(ctx, {
      VIGIL_TOOLS: catalogPath,
      TOOLS_ALLOW_PRIVATE: 'true',
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '3000',
      WATCHER_INTERVAL_MS: '300',
      USER_UPDATE_INTERVAL_MS: '60000',
      HUMAN_WAIT_TIMEOUT_MS: '12000',
    });
    await Promise.all([
      stack.start('api'),
      stack.start('watcher'),
      stack.start('notifier'),
      stack.start('worker'),
    ]);
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const say = async (conversation: string, text: string) => {
    const reply = await stack.api!.post(`/v1/conversations/${conversation}/messages`, { text });
    expect({ status: reply.status, message: reply.body.message }).toEqual({
      status: 201,
      message: undefined,
    });
    return reply.body as { route: string; reply: string; taskId?: string };
  };
  const waiting = (id: string) =>
    stack.waitForTask(id, (t) => t.status === 'waiting_on_human', 30_000, 'the question');
  const ended = (id: string) =>
    stack.waitForTask(id, (t) => ['completed', 'failed', 'cancelled'].includes(t.status), 30_000, 'the end');
  /** The answer link the person was sent, from the task's human_input message. */
  const answerLink = async (id: string): Promise<string> => {
    for (let tries = 0; tries < 100; tries++) {
      const messages = (await stack.api!.get(`/v1/tasks/${id}/messages`)).body.data as {
        kind: string;
        text: string;
      }[];
      const asked = messages.find((message) => message.kind === 'human_input');
      const path = asked && /https?:\/\/[^/\s]+(\/h\/[A-Za-z0-9_.-]+)/.exec(asked.text)?.[1];
      if (path) return `${stack.api!.baseUrl}${path}`;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no human_input message with an answer link for ${id}`);
  };
  const post = (url: string, text: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ text }),
    });
  const toolCalls = async (id: string): Promise<string[]> =>
    ((await stack.api!.get(`/v1/tasks/${id}/actions?limit=100`)).body.data as ActionRecord[]).map(
      (action) => `${action.tool}${action.error ? ' (error)' : ''}`,
    );

  it('starts a mission from free text; its question is answered once through the link, and it completes verified', async () => {
    const started = await say(
      'c-handoff',
      'Research the renewal options and tell me which region goes first',
    );
    expect(started.route).toBe('mission');
    const id = started.taskId!;
    await waiting(id);

    const link = await answerLink(id);
    for (let open = 0; open < 2; open++) {
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Which region should go first?');
    }
    expect((await post(link, 'Europe')).status).toBe(200);
    expect((await post(link, 'Asia')).status).toBe(409);

    const done = await ended(id);
    expect(done).toMatchObject({ status: 'completed', humanInput: 'Europe' });
    expect(done.verification?.passed).toBe(true);
    // It went on from the step it stopped at: the first finding and the question ran once each.
    expect(await toolCalls(id)).toEqual([
      'record_finding',
      'message_user',
      'request_human_input',
      'record_finding',
      'finish_task',
    ]);
    expect((await fetch(link)).status).toBe(409);
    // The agent's message reached the person mid-job, as kind `agent`, before its question.
    const messages = (await stack.api!.get(`/v1/tasks/${id}/messages`)).body.data as {
      kind: string;
      text: string;
    }[];
    expect(messages).toContainEqual(
      expect.objectContaining({ kind: 'agent', text: 'Three renewal options found so far.' }),
    );
    const kinds = messages.map((message) => message.kind);
    expect(kinds.indexOf('agent')).toBeLessThan(kinds.indexOf('human_input'));
  });

  it('archives the active mission for a new one; the next message answers the new one; the archived one resumes and completes', async () => {
    const first = await say('c-archive', 'Audit the renewal options for the first brand');
    await waiting(first.taskId!);
    const second = await say('c-archive', 'Audit the renewal options for the second brand');
    expect(second.reply).toContain('paused and archived');
    expect((await stack.api!.get(`/v1/tasks/${first.taskId}`)).body).toMatchObject({
      status: 'paused',
      statusReason: 'archived',
      archived: true,
    });

    await waiting(second.taskId!);
    const answered = await say('c-archive', 'Europe first, please');
    expect(answered.taskId).toBe(second.taskId);
    expect((await ended(second.taskId!)).status).toBe('completed');

    const resumed = await say('c-archive', `resume ${first.taskId}`);
    expect(resumed.taskId).toBe(first.taskId);
    const done = await ended(first.taskId!);
    expect(done.status).toBe('completed');
    expect(done.verification?.passed).toBe(true);

    const log = (await stack.api!.get('/v1/conversations/c-archive/messages')).body.data as {
      from: string;
      route?: string;
    }[];
    expect(log.filter((line) => line.from === 'vigil').map((line) => line.route)).toEqual([
      'mission',
      'mission',
      'tools',
      'tools',
    ]);
    expect(log.some((line) => line.from === 'task')).toBe(true);
  });

  it('fails a task whose question nobody answers once HUMAN_WAIT_TIMEOUT_MS runs out, saying so', async () => {
    const started = await say('c-timeout', 'Research the renewal options and ask me about regions');
    await waiting(started.taskId!);
    const failed = await stack.waitForTask(
      started.taskId!,
      (t) => t.status === 'failed',
      40_000,
      'the timeout',
    );
    expect(JSON.stringify(failed.failure)).toMatch(/answer|human|wait/i);
    const messages = (await stack.api!.get(`/v1/tasks/${started.taskId}/messages`)).body.data as {
      kind: string;
    }[];
    expect(messages.map((message) => message.kind)).toContain('failed');
  });
});
