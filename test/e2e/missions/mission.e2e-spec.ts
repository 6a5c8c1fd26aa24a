import type { ActionRecord, TaskRecord } from '@vigil/tasks';
import { AppProcess, RedisTestContext, VigilStack } from '@vigil/testing';
import { GAPS, MissionWorld, SUMMARY, TENANT, TICKET_TITLE } from '../../support/mission-fixture';

/**
 * Missions end to end, with the built apps as processes, the real MCP servers from npm
 * (server-filesystem, server-memory) spawned by the Worker and the Watcher, and the local ticket
 * tracker as the HTTP tool: verified completion, a Worker SIGKILLed at each write, a write whose
 * answer was lost, and a tenant's allow list.
 */
describe('missions with tools from outside', () => {
  const ctx = new RedisTestContext('missions');
  const world = new MissionWorld();
  let stack: VigilStack;
  let worker: AppProcess;

  beforeAll(async () => {
    await world.start();
    stack = new VigilStack(ctx, {
      API_KEYS: `${TENANT}:test-key-0001,other:other-key-0001`,
      ...world.env(),
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '3000',
      WATCHER_INTERVAL_MS: '300',
      USER_UPDATE_INTERVAL_MS: '60000',
    });
    await Promise.all([stack.start('api'), stack.start('watcher'), stack.start('notifier')]);
    worker = await stack.start('worker');
  });
  afterAll(async () => {
    await stack.stopAll();
    await world.close();
    await ctx.close();
  });
  beforeEach(() => world.reset());

  const create = async (body: Record<string, unknown>): Promise<string> => {
    const created = await stack.api!.post('/v1/tasks', body);
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const actionsOf = async (id: string): Promise<ActionRecord[]> =>
    (await stack.api!.get(`/v1/tasks/${id}/actions?limit=100`)).body.data;
  const report = async (id: string): Promise<string> => {
    const response = await fetch(`${stack.api!.baseUrl}/v1/tasks/${id}/report`, {
      headers: { authorization: 'Bearer test-key-0001' },
    });
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    return response.text();
  };
  /** Real calls per write step, from the runtime's action log: none answered from the journal. */
  const callsPerWrite = (actions: ActionRecord[]): Record<string, number> => {
    const calls: Record<string, number> = {};
    for (const action of actions)
      if (
        action.key &&
        !action.deduplicated &&
        action.error === undefined &&
        !/record_finding|finish_task/.test(action.tool)
      )
        calls[action.key] = (calls[action.key] ?? 0) + 1;
    return calls;
  };
  const expectEachWriteOnce = () => {
    expect(world.files()).toEqual({ 'gaps.md': GAPS, 'summary.md': SUMMARY });
    expect(world.memoryEntities().map((entity) => entity.name)).toEqual(['Quickstart', 'Configuration']);
    expect(world.tracker.stats()).toEqual({ tickets: 1, createCalls: 1 });
    expect(world.tracker.tickets[0]).toMatchObject({ title: TICKET_TITLE, externalId: expect.any(String) });
  };

  it('completes verified through tool_result and http_json; the report lists its findings', async () => {
    const id = await create(world.request());
    const done = await stack.waitForTask(
      id,
      (t) => t.status === 'completed' || t.status === 'failed',
      45_000,
      'the end',
    );
    expect(done.status).toBe('completed');
    expect(done.verification?.passed).toBe(true);
    expect(done.verification?.checks.map((c) => [c.check, c.passed])).toEqual([
      ['tool_result', true],
      ['tool_result', true],
      ['http_json', true],
      ['findings_count', true],
    ]);
    expectEachWriteOnce();
    expect(Object.values(callsPerWrite(await actionsOf(id)))).toEqual([1, 1, 1, 1, 1]);

    const text = await report(id);
    expect(text).toContain('## Findings (2)');
    expect(text).toContain('### 1. The quickstart never says Redis must run');
    expect(text).toContain('```json\n{"document":"quickstart","severity":"high"}\n```');
    expect(text).toContain('### 2. Ticket opened');
    expect(text).toContain('5 writes in the write journal; each was made once.');
    expect(text).toContain('id: T-1');
    expect(text).toMatch(/\| http_json \| 1 \| 1 \| pass \|/);

    // The completed message carries the report as its body.
    let completed: { text: string } | undefined;
    const deadline = Date.now() + 10_000;
    while (!completed && Date.now() < deadline) {
      const messages = await stack.api!.get(`/v1/tasks/${id}/messages`);
      completed = messages.body.data.find((m: { kind: string }) => m.kind === 'completed');
      if (!completed) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(completed?.text).toContain('## Findings (2)');
    expect(completed?.text).toContain('## External writes');
  }, 90_000);

  it('makes each write exactly once when the Worker is SIGKILLed at each of the write steps in turn', async () => {
    for (const crashAtStep of [1, 2, 3, 4, 5]) {
      world.reset();
      const id = await create(world.request({ crashAtStep }));
      const exit = await worker.exited();
      expect(exit.signal).toBe('SIGKILL');
      // As an orchestrator would: a new Worker process takes over.
      worker = await stack.start('worker');
      const done: TaskRecord = await stack.waitForTask(
        id,
        (t) => ['completed', 'failed', 'waiting_on_human'].includes(t.status),
        45_000,
        `the end after a crash at step ${crashAtStep}`,
      );
      expect({ crashAtStep, status: done.status, passed: done.verification?.passed }).toEqual({
        crashAtStep,
        status: 'completed',
        passed: true,
      });
      expect(done.retryHistory.map((entry) => entry.reason)).toEqual(['crashed']);
      expectEachWriteOnce();
      const calls = callsPerWrite(await actionsOf(id));
      expect({ crashAtStep, calls: Object.values(calls) }).toEqual({ crashAtStep, calls: [1, 1, 1, 1, 1] });
      expect(await report(id)).toContain('5 writes in the write journal; each was made once.');
    }
  }, 300_000);

  it('waits for a person when a write without lookup committed but its answer was lost, and never writes again', async () => {
    // One step per slice: the failed call ends its slice, and the next slice's agent tries the
    // write again, as a model told "fetch failed" would. That second try is what must not happen.
    await stack.stopApps('worker');
    worker = await stack.start('worker', { SLICE_MAX_STEPS: '1' });
    world.tracker.dropNextCreates(1);
    const id = await create({
      kind: 'mission',
      title: 'File one ticket',
      input: { goal: 'File the quickstart ticket.', tools: ['file_ticket'] },
      exitCriteria: [world.ticketFiledOnce()],
      agent: {
        scripted: {
          plan: [
            { tool: 'file_ticket', args: { title: TICKET_TITLE } },
            { tool: 'finish_task', args: { summary: 'Filed.' } },
          ],
        },
      },
    });
    const waiting = await stack.waitForTask(
      id,
      (t) => ['waiting_on_human', 'completed', 'failed'].includes(t.status),
      45_000,
      'the unresolved write',
    );
    expect({ status: waiting.status, statusReason: waiting.statusReason }).toEqual({
      status: 'waiting_on_human',
      statusReason: 'unresolved_write',
    });
    expect(waiting.humanQuestion).toContain('file_ticket');
    // Several sweeps later: still one ticket, one create received.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(world.tracker.stats()).toEqual({ tickets: 1, createCalls: 1 });
    expect((await stack.tasks.get(id))?.status).toBe('waiting_on_human');

    const answered = await stack.api!.post(`/v1/tasks/${id}/input`, { text: 'T-1', resolution: 'done' });
    expect(answered.status).toBe(200);
    const done = await stack.waitForTask(
      id,
      (t) => t.status === 'completed' || t.status === 'failed',
      30_000,
      'completion',
    );
    expect(done.status).toBe('completed');
    expect(world.tracker.stats()).toEqual({ tickets: 1, createCalls: 1 });
    const actions = await actionsOf(id);
    expect(actions[0]).toMatchObject({ tool: 'file_ticket', error: expect.stringContaining('file_ticket') });
    const text = await report(id);
    expect(text).toContain('confirmed by a person');
    expect(text).toContain('1 write in the write journal; each was made once.');
    await stack.stopApps('worker');
    worker = await stack.start('worker');
  }, 90_000);

  it('refuses at creation a tool outside the tenant allow list (400 naming it)', async () => {
    const other = stack.api!.withKey('other-key-0001');
    const refused = await other.post('/v1/tasks', {
      ...world.request(),
      input: { goal: 'File a ticket.', tools: ['files', 'create_ticket'] },
      exitCriteria: [
        { check: 'http_json', args: { url: `${world.tracker.url}/tickets`, pointer: '/total' }, expected: 1 },
      ],
      agent: { scripted: { plan: [{ tool: 'create_ticket', args: { title: 'x' } }] } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('create_ticket');
    expect(world.tracker.stats().createCalls).toBe(0);
  });
});
