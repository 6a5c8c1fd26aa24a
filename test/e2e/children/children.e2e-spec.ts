import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisTestContext, VigilStack } from '@vigil/testing';

interface TaskView {
  id: string;
  status: string;
  parentId: string | null;
  title: string;
  retryHistory: { reason: string }[];
  verification: { passed: boolean } | null;
  children: { total: number; running: number; done: number } | null;
}

const TERMINAL = ['completed', 'failed', 'cancelled'];

/**
 * Child missions end to end, the built apps as processes and no model key (docs/missions.md,
 * "Child missions"): a parent's scripted plan starts seven children, five in one model turn and
 * two in a later one; sampled every 50 ms, never more than MAX_PARALLEL_CHILDREN (3) run; each
 * child completes verified by its own criteria, and the parent resumes and completes through
 * children_completed. A stopped parent cancels its children; a killed Worker's children are
 * recovered, the waiting parent is not.
 */
describe('child missions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-children-e2e-'));
  const catalogPath = join(dir, 'vigil.tools.json');
  const ctx = new RedisTestContext('children-e2e');
  let stack: VigilStack;
  let server: Server;
  let slowMs = 400;

  beforeAll(async () => {
    // A harmless read tool that takes a while, so children overlap.
    server = createServer((_request, response) => {
      setTimeout(() => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ ok: true }));
      }, slowMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    writeFileSync(
      catalogPath,
      JSON.stringify({
        mcpServers: {},
        httpTools: {
          slow_read: {
            description: 'Reads a slow status page.',
            method: 'GET',
            url: `http://127.0.0.1:${port}/status`,
            input: { type: 'object', properties: {} },
          },
        },
        tenants: { acme: { allow: ['slow_read'] }, other: { allow: ['slow_read'] } },
      }),
    );
    stack = new VigilStack(ctx, {
      API_KEYS: 'acme:test-key-0001,other:other-key-0001',
      VIGIL_TOOLS: catalogPath,
      TOOLS_ALLOW_PRIVATE: 'true',
      MAX_PARALLEL_CHILDREN: '3',
      WORKER_CONCURRENCY: '8',
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '3000',
      WATCHER_INTERVAL_MS: '300',
      USER_UPDATE_INTERVAL_MS: '60000',
    });
    await Promise.all([stack.start('api'), stack.start('watcher'), stack.start('worker')]);
  });
  afterAll(async () => {
    await ctx.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const subtask = (n: number) => ({
    tool: 'start_subtask',
    args: {
      title: `Child ${n}`,
      goal: `Look into part ${n}`,
      evidence: 'findings_only',
      exitCriteria: [{ check: 'findings_count', expected: 1 }],
      agent: {
        scripted: {
          plan: [
            { tool: 'slow_read', args: {} },
            { tool: 'record_finding', args: { title: `Part ${n} looked into`, body: 'Read the status.' } },
            { tool: 'finish_task', args: { summary: `Part ${n} done.` } },
          ],
        },
      },
    },
  });
  const createParent = async (plan: unknown[]) => {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'mission',
      input: { goal: 'Look into seven parts through child missions', tools: ['slow_read'] },
      exitCriteria: [{ check: 'children_completed', expected: true }],
      agent: { scripted: { plan } },
    });
    expect({ status: created.status, body: created.status === 201 ? 'ok' : created.body }).toEqual({
      status: 201,
      body: 'ok',
    });
    return created.body.id as string;
  };
  const childrenOf = async (id: string): Promise<TaskView[]> => {
    const page = await stack.api!.get(`/v1/tasks/${id}/children`);
    expect(page.status).toBe(200);
    return page.body.data as TaskView[];
  };
  const parentOf = async (id: string): Promise<TaskView> => (await stack.api!.get(`/v1/tasks/${id}`)).body;

  it('runs seven children at most three at a time; all complete verified and the parent resumes and completes', async () => {
    const id = await createParent([
      [1, 2, 3, 4, 5].map((n) => subtask(n)),
      [6, 7].map((n) => subtask(n)),
      { tool: 'finish_task', args: { summary: 'Seven parts looked into.' } },
    ]);
    let maxRunning = 0;
    let maxCounted = 0;
    let samples = 0;
    const statusesSeen = new Set<string>();
    let parent = await parentOf(id);
    while (!TERMINAL.includes(parent.status)) {
      const children = await childrenOf(id);
      samples++;
      statusesSeen.add(parent.status);
      // Running: started and not ended (a child released but not yet picked up counts in `running`).
      const started = children.filter((child) => !['queued', ...TERMINAL].includes(child.status));
      maxRunning = Math.max(maxRunning, started.length);
      maxCounted = Math.max(maxCounted, parent.children?.running ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      parent = await parentOf(id);
      if (samples > 1200) throw new Error(`parent ${id} did not end: ${JSON.stringify(parent)}`);
    }
    const children = await childrenOf(id);
    expect(children.map((child) => child.title)).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => `Child ${n}`));
    expect(children.map((child) => [child.status, child.verification?.passed, child.parentId])).toEqual(
      children.map(() => ['completed', true, id]),
    );
    expect(maxRunning).toBeLessThanOrEqual(3);
    expect(maxCounted).toBeLessThanOrEqual(3);
    // The limit was reached: children did run side by side.
    expect(maxCounted).toBe(3);
    expect(statusesSeen.has('waiting_on_tool')).toBe(true);
    expect(parent).toMatchObject({
      status: 'completed',
      verification: { passed: true },
      children: { total: 7, running: 0, done: 7 },
      retryHistory: [],
    });
    // Every start_subtask ran once: no child was made twice on the parent's resumption.
    const actions = (await stack.api!.get(`/v1/tasks/${id}/actions?limit=100`)).body.data as {
      tool: string;
      error?: string;
    }[];
    expect(actions.map((a) => `${a.tool}${a.error ? ' (error)' : ''}`)).toEqual([
      ...Array<string>(7).fill('start_subtask'),
      'finish_task',
    ]);
    console.log(JSON.stringify({ children: 7, samples, maxRunning, maxCounted }));
  }, 120_000);

  it('stopping a parent cancels its running and queued children', async () => {
    slowMs = 4000;
    try {
      const id = await createParent([
        [1, 2, 3, 4, 5].map((n) => subtask(n)),
        { tool: 'finish_task', args: { summary: 'never reached' } },
      ]);
      await stack.waitForTask(id, (t) => t.status === 'waiting_on_tool', 30_000, 'waiting on children');
      for (let tries = 0; tries < 100; tries++) {
        if ((await childrenOf(id)).some((child) => child.status === 'running')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const stopped = Date.now();
      expect((await stack.api!.post(`/v1/tasks/${id}/stop`)).body.status).toBe('cancelled');
      const children = await childrenOf(id);
      expect(children).toHaveLength(5);
      expect(children.map((child) => child.status)).toEqual(children.map(() => 'cancelled'));
      // The in-flight call of a running child is aborted: its Worker lets go within a second.
      for (const child of children)
        await stack.waitForTask(child.id, (t) => t.inFlight === null, 2000, 'the call aborted');
      expect(Date.now() - stopped).toBeLessThan(5000);
      // Still cancelled later: no child was released after the stop.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await childrenOf(id)).map((child) => child.status)).toEqual(children.map(() => 'cancelled'));
    } finally {
      slowMs = 400;
    }
  }, 60_000);

  it('a parent paused and resumed while its children run goes back to waiting for them', async () => {
    slowMs = 1500;
    try {
      const id = await createParent([
        [1, 2].map((n) => subtask(n)),
        { tool: 'finish_task', args: { summary: 'Two parts looked into.' } },
      ]);
      await stack.waitForTask(id, (t) => t.status === 'waiting_on_tool', 30_000, 'waiting on children');
      expect((await stack.api!.post(`/v1/tasks/${id}/pause`)).body.status).toBe('paused');
      expect((await stack.api!.post(`/v1/tasks/${id}/resume`)).body.status).toBe('queued');
      const again = await stack.waitForTask(
        id,
        (t) => t.status === 'waiting_on_tool' || TERMINAL.includes(t.status),
        30_000,
        'waiting again',
      );
      expect(again).toMatchObject({ status: 'waiting_on_tool', statusReason: 'children' });
      expect(again.children!.done).toBeLessThan(2);
      const done = await stack.waitForTask(
        id,
        (t) => TERMINAL.includes(t.status),
        60_000,
        'the parent ended',
      );
      expect(done).toMatchObject({ status: 'completed', retryHistory: [], verification: { passed: true } });
    } finally {
      slowMs = 400;
    }
  }, 90_000);

  it('takes parentId on POST /v1/tasks for the tenant’s own tasks only; another tenant’s is a 404', async () => {
    const id = await createParent([subtask(1), { tool: 'finish_task', args: { summary: 'done' } }]);
    const other = stack.api!.withKey('other-key-0001');
    const foreign = await other.post('/v1/tasks', {
      kind: 'mission',
      input: { goal: 'Not yours', tools: ['slow_read'] },
      exitCriteria: [{ check: 'children_completed', expected: true }],
      parentId: id,
      agent: { scripted: { plan: [{ tool: 'finish_task', args: { summary: 'x' } }] } },
    });
    expect(foreign.status).toBe(404);
    expect((await other.get(`/v1/tasks/${id}/children`)).status).toBe(404);
    const own = await stack.api!.post('/v1/tasks', {
      kind: 'mission',
      input: { goal: 'A child by the API', tools: ['slow_read'], evidence: 'findings_only' },
      parentId: id,
      agent: {
        scripted: {
          plan: [
            { tool: 'record_finding', args: { title: 'API child', body: 'Made by POST.' } },
            { tool: 'finish_task', args: { summary: 'done' } },
          ],
        },
      },
    });
    expect(own.status).toBe(201);
    expect(own.body.parentId).toBe(id);
    await stack.waitForTask(id, (t) => TERMINAL.includes(t.status), 60_000, 'the parent ended');
    const children = await childrenOf(id);
    expect(children.map((child) => child.id)).toContain(own.body.id);
    expect(children.map((child) => child.status)).toEqual(children.map(() => 'completed'));
    expect((await parentOf(id)).status).toBe('completed');
  }, 90_000);

  it('a killed Worker: only its children are recovered, the waiting parent is not', async () => {
    slowMs = 1500;
    try {
      const id = await createParent([
        [1, 2, 3].map((n) => subtask(n)),
        { tool: 'finish_task', args: { summary: 'Three parts looked into.' } },
      ]);
      await stack.waitForTask(id, (t) => t.status === 'waiting_on_tool', 30_000, 'waiting on children');
      for (let tries = 0; tries < 100; tries++) {
        if ((await childrenOf(id)).some((child) => child.status === 'running')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const worker = stack.processes.find((p) => p.name === 'worker')!;
      worker.signal('SIGKILL');
      await worker.exited();
      await stack.start('worker');
      const done = await stack.waitForTask(
        id,
        (t) => TERMINAL.includes(t.status),
        60_000,
        'the parent ended',
      );
      expect(done).toMatchObject({ status: 'completed', attempt: 1, retryHistory: [] });
      const children = await childrenOf(id);
      expect(children.map((child) => child.status)).toEqual(['completed', 'completed', 'completed']);
      const crashed = children.filter((child) => child.retryHistory.some((r) => r.reason === 'crashed'));
      expect(crashed.length).toBeGreaterThanOrEqual(1);
    } finally {
      slowMs = 400;
    }
  }, 90_000);
});
