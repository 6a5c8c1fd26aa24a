import { createHash } from 'node:crypto';
import { kindServices } from '@vigil/kinds';
import { ProvideInputUseCase, ResolutionNotExpectedError } from '@vigil/control';
import { attemptSpanId, taskTraceId, type Tracing } from '@vigil/telemetry';
import { ExitCheckRunner } from '@vigil/supervisor';
import {
  ArchivedTasks,
  InvalidTaskInputError,
  ReadableTasks,
  type ExitCriterion,
  type JournalEntry,
  type ScriptedTurn,
} from '@vigil/tasks';
import {
  RedisTestContext,
  FakeToolGateway,
  TEST_CLAIM,
  SliceRunnerHarness,
  memoryTracing,
} from '@vigil/testing';
import { FakeCatalog } from '../../support/fake-catalog';

/**
 * The mission kind on the real runtime (docs/missions.md, "The mission kind"): created through
 * the create use case, its scripted plan played by the real slice runner against real Redis and a
 * real slice queue, its criteria checked by the Watcher's exit-check runner — with an in-memory tool
 * catalog standing in for MCP servers and HTTP endpoints, which holds what was really written.
 */
describe('missions on the runtime', () => {
  const ctx = new RedisTestContext('mission-runtime', {
    SLICE_MAX_STEPS: '3',
    GLOBAL_SPEND_LIMIT_USD: '',
    TOOLS_ALLOW_PRIVATE: 'true',
    HEARTBEAT_INTERVAL_MS: '30000',
  });
  const harness = new SliceRunnerHarness(ctx);
  const { config, tasks, contexts, journal, lifecycle } = harness;
  afterAll(() => ctx.close());

  function runtime(catalog: Pick<FakeCatalog, 'gateway'>, tracing?: Tracing) {
    const kinds = harness.kinds(catalog.gateway);
    const checks = new ExitCheckRunner(kinds, contexts);
    return {
      runner: harness.runner(catalog.gateway, { kinds, workerId: 'mission-worker', tracing }),
      create: harness.createUseCase(kinds),
      input: new ProvideInputUseCase(
        tasks,
        lifecycle,
        journal,
        new ReadableTasks(tasks, new ArchivedTasks()),
        tracing,
      ),
      checks,
      retries: harness.retryPublisher(kinds, tracing),
    };
  }

  const mission = (plan: ScriptedTurn[], tools: string[], exitCriteria: ExitCriterion[]) => ({
    kind: 'mission',
    input: { goal: 'Keep notes on the launch and file what needs doing', tools },
    exitCriteria,
    agent: { scripted: { plan } },
  });

  const journalOf = async (taskId: string): Promise<JournalEntry[]> =>
    Object.values(await ctx.redis.hgetall(ctx.keys.journal(taskId))).map(
      (raw) => JSON.parse(raw) as JournalEntry,
    );

  it('plays its plan through real slices: writes journalled once with their idempotency keys, verified from the external system', async () => {
    const catalog = new FakeCatalog();
    const { runner, create, checks } = runtime(catalog);
    const { task } = await create.execute(
      'acme',
      mission(
        [
          [
            { tool: 'notes.create_note', args: { title: 'launch date' } },
            { tool: 'notes.create_note', args: { title: 'press list' } },
          ],
          { tool: 'notes.list_notes', args: {} },
          {
            tool: 'record_finding',
            args: { title: 'Two notes kept', body: 'launch date and press list', data: { count: 2 } },
          },
          { tool: 'memory.set', args: { key: 'status', value: 'noted' } },
          { tool: 'finish_task', args: { summary: 'notes kept' } },
        ],
        ['notes', 'memory.set'],
        [
          {
            check: 'tool_result',
            args: { tool: 'notes.list_notes', arguments: {}, pointer: '/structuredContent/count' },
            expected: 2,
          },
          { check: 'findings_count', args: { titleMatches: '^Two notes' }, expected: 1 },
        ],
      ),
    );
    expect(task.title).toBe('Keep notes on the launch and file what needs doing');

    expect((await harness.runSlices(runner, task.id)).at(-1)).toBe('verifying');
    // Each write reached the external system once, with the key of its logical step.
    const creates = catalog.gateway.callsOf('notes.create_note');
    expect(creates.map((call) => call.args.title)).toEqual(['launch date', 'press list']);
    for (const call of creates) {
      const step = `notes.create_note:${JSON.stringify({ title: call.args.title })}`;
      expect(call.idempotencyKey).toBe(
        createHash('sha256').update(`${task.id}\n${step}`).digest('hex').slice(0, 32),
      );
    }
    expect(catalog.notes.size).toBe(2);
    expect(catalog.memory.get('status')).toBe('noted');
    const entries = await journalOf(task.id);
    expect(entries).toHaveLength(3);
    expect(entries.every((entry) => entry.state === 'done')).toBe(true);
    // The raw result is the step's saved output; the model was shown the tool's text.
    const actions = (await ctx.redis.lrange(ctx.keys.actions(task.id), 0, -1)).map((raw) => JSON.parse(raw));
    expect(actions.find((action) => action.tool === 'notes__list_notes').result.structuredContent).toEqual({
      count: 2,
      titles: ['launch date', 'press list'],
    });
    // Two calls of one model turn are one reply: the same slice, consecutive steps.
    const [first, second] = actions.filter((action) => action.tool === 'notes__create_note');
    expect(second.step).toBe(first.step + 1);
    expect(second.slice).toBe(first.slice);

    const context = await contexts.load(task.id);
    expect(context.findings).toEqual([
      {
        title: 'Two notes kept',
        body: 'launch date and press list',
        data: { count: 2 },
        attempt: 1,
        at: expect.any(Number),
      },
    ]);
    const verifying = (await tasks.get(task.id))!;
    expect(verifying.status).toBe('verifying');
    const run = await checks.run(verifying, AbortSignal.timeout(5000));
    expect(run.passed).toBe(true);
    expect(run.checks.map((check) => [check.check, check.actual])).toEqual([
      ['tool_result', 2],
      ['findings_count', 1],
    ]);

    // The checks read the external system, not the record: a third note there fails tool_result.
    catalog.notes.set('note_x', { title: 'added by someone else' });
    const again = await checks.run(verifying, AbortSignal.timeout(5000));
    expect(again.passed).toBe(false);
    expect(again.checks[0]).toMatchObject({
      passed: false,
      actual: 3,
      detail: expect.stringContaining('expected 2'),
    });
  });

  it('looks a write up after its answer was lost, and an idempotent write is simply made again', async () => {
    const catalog = new FakeCatalog();
    catalog.dropAnswerOnce.add('launch date');
    catalog.dropAnswerOnce.add('status');
    const { runner, create } = runtime(catalog);
    const { task } = await create.execute(
      'acme',
      mission(
        [
          { tool: 'notes.create_note', args: { title: 'launch date' } },
          { tool: 'memory.set', args: { key: 'status', value: 'noted' } },
        ],
        ['notes', 'memory'],
        [
          {
            check: 'tool_result',
            args: { tool: 'notes.list_notes', arguments: {}, pointer: '/structuredContent/count' },
            expected: 1,
          },
        ],
      ),
    );
    expect((await harness.runSlices(runner, task.id)).at(-1)).toBe('verifying');
    // The note was created once and found through its lookup; memory.set ran twice, as allowed.
    expect(catalog.gateway.callsOf('notes.create_note')).toHaveLength(1);
    expect(catalog.gateway.callsOf('notes.create_note', 'lookup')).toHaveLength(1);
    expect(catalog.notes.size).toBe(1);
    expect(catalog.gateway.callsOf('memory.set')).toHaveLength(2);
    const entries = await journalOf(task.id);
    expect(entries.find((entry) => entry.reconciled)?.result).toEqual({
      structuredContent: { id: 'note_1' },
    });
  });

  it('the Watcher looks up a write the crashed attempt made before it retries; the retry does not make it again', async () => {
    const catalog = new FakeCatalog();
    const { tracing, spans } = memoryTracing();
    const { runner, create, retries } = runtime(catalog, tracing);
    const { task } = await create.execute(
      'acme',
      mission(
        [{ tool: 'notes.create_note', args: { title: 'launch date' } }],
        ['notes'],
        [
          {
            check: 'tool_result',
            args: { tool: 'notes.list_notes', arguments: {}, pointer: '/structuredContent/count' },
            expected: 1,
          },
        ],
      ),
    );
    // Attempt 1 journalled the intent and its call reached the notes server; then its Worker died.
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const [tool] = await harness.kinds(catalog.gateway).bind(task).tools();
    const args = { title: 'launch date' };
    await journal.begin(task.id, 1, tool.stepKey(args, task.input), args);
    await tool.execute(args, {
      taskId: task.id,
      attempt: 1,
      input: task.input,
      outputs: new Map(),
      signal: new AbortController().signal,
      services: kindServices(config, catalog.gateway),
    });
    await lifecycle.recover((await tasks.get(task.id))!, {
      reason: 'crashed',
      detail: 'worker gone',
      lease: { owner: 'watcher-test', expiresAt: Date.now() + 60_000 },
    });
    const retrying = (await tasks.get(task.id))!;
    expect(await retries.publish(retrying, { owner: 'watcher-test', expiresAt: Date.now() + 60_000 })).toBe(
      'published',
    );
    const queued = (await tasks.get(task.id))!;
    expect(queued).toMatchObject({ status: 'queued', attempt: 2, completedUnits: 1 });
    expect(queued.retryContext?.reconciled).toEqual([{ key: tool.stepKey(args, task.input), found: true }]);
    // In the trace: the lookup under the attempt that left the write unknown, then attempt 2 made.
    const inTrace = spans().filter((span) => span.spanContext().traceId === taskTraceId(task.id));
    const lookup = inTrace.find((span) => span.name === 'vigil.watcher.reconcile')!;
    expect(lookup.parentSpanContext?.spanId).toBe(attemptSpanId(task.id, 1));
    expect(lookup.attributes).toMatchObject({
      'vigil.step.key': tool.stepKey(args, task.input),
      'vigil.reconcile.found': true,
    });
    const attempt = inTrace.find(
      (span) => span.name === 'vigil.attempt' && span.attributes['vigil.attempt'] === 2,
    )!;
    expect(attempt.spanContext().spanId).toBe(attemptSpanId(task.id, 2));
    expect(attempt.attributes).toMatchObject({ 'vigil.attempt.reason': 'crashed', 'vigil.retry.number': 1 });
    expect((await harness.runSlices(runner, task.id)).at(-1)).toBe('verifying');
    expect(catalog.gateway.callsOf('notes.create_note')).toHaveLength(1);
    expect(catalog.notes.size).toBe(1);
  });

  it("counts a tool's progress reports as heartbeats while the call runs", async () => {
    const seen: { callStarted: number; beatDuringCall: number | null }[] = [];
    let taskId = '';
    const gateway = new FakeToolGateway([
      {
        catalogName: 'crawler.crawl',
        effect: 'read',
        handle: async (_args, options) => {
          const callStarted = Date.now();
          options.onProgress?.();
          await new Promise((resolve) => setTimeout(resolve, 1100));
          options.onProgress?.();
          await new Promise((resolve) => setTimeout(resolve, 200));
          seen.push({ callStarted, beatDuringCall: (await tasks.get(taskId))!.lastHeartbeatAt });
          return { text: 'crawled', raw: { pages: 3 } };
        },
      },
    ]);
    const { runner, create } = runtime({ gateway });
    const { task } = await create.execute(
      'acme',
      mission(
        [{ tool: 'crawler.crawl', args: { site: 'example.com' } }],
        ['crawler'],
        [
          {
            check: 'tool_result',
            args: { tool: 'crawler.crawl', arguments: {}, pointer: '/pages' },
            expected: 3,
          },
        ],
      ),
    );
    taskId = task.id;
    expect((await harness.runSlices(runner, task.id)).at(-1)).toBe('verifying');
    // HEARTBEAT_INTERVAL_MS is 30 s here: only the second progress report can have beaten.
    expect(seen[0].beatDuringCall).toBeGreaterThanOrEqual(seen[0].callStarted + 1000);
  });

  describe('a write whose answer was lost and that has no lookup', () => {
    async function waitingTask(catalog: FakeCatalog, tracing?: Tracing) {
      catalog.dropAnswerOnce.add('renew the domain');
      const parts = runtime(catalog, tracing);
      const { task } = await parts.create.execute(
        'acme',
        mission(
          [
            { tool: 'create_ticket', args: { title: 'renew the domain' } },
            { tool: 'record_finding', args: { title: 'Ticket filed', body: 'renew the domain' } },
          ],
          ['create_ticket'],
          [
            { check: 'findings_count', expected: 1 },
            { check: 'http_json', args: { url: 'http://127.0.0.1:9/tickets', pointer: '' }, expected: {} },
          ],
        ),
      );
      expect(await harness.runSlices(parts.runner, task.id)).toEqual(['waiting_on_human']);
      return { ...parts, task: (await tasks.get(task.id))! };
    }

    it('waits for a person, naming the tool and its arguments, and never makes the call twice', async () => {
      const catalog = new FakeCatalog();
      const { task, input } = await waitingTask(catalog);
      expect(task).toMatchObject({ status: 'waiting_on_human', statusReason: 'unresolved_write' });
      expect(task.humanQuestion).toContain(
        'Vigil cannot tell whether create_ticket {"title":"renew the domain"} happened',
      );
      expect(catalog.gateway.callsOf('create_ticket')).toHaveLength(1);
      expect(catalog.tickets).toHaveLength(1);
      // Input that does not say whether it happened is refused and changes nothing.
      await expect(input.execute('acme', task.id, { text: 'yes' })).rejects.toThrow(InvalidTaskInputError);
      expect((await tasks.get(task.id))!.status).toBe('waiting_on_human');
    });

    it('"done": continues from the same step without calling again, the answer as the write\'s result', async () => {
      const catalog = new FakeCatalog();
      const { task, input, runner } = await waitingTask(catalog);
      const after = await input.execute('acme', task.id, { text: 'TCK-1', resolution: 'done' });
      expect(after).toMatchObject({ status: 'queued', statusReason: null });
      const [entry] = await journalOf(task.id);
      expect(entry).toMatchObject({ state: 'done', result: 'TCK-1', resolvedBy: 'person' });
      // A second answer finds nothing left to settle and no waiting task: refused, changes nothing.
      await expect(input.execute('acme', task.id, { text: 'TCK-1', resolution: 'done' })).rejects.toThrow(
        ResolutionNotExpectedError,
      );
      expect((await harness.runSlices(runner, task.id)).at(-1)).toBe('verifying');
      expect(catalog.gateway.callsOf('create_ticket')).toHaveLength(1);
      expect(catalog.tickets).toHaveLength(1);
      expect((await contexts.load(task.id)).findings.map((finding) => finding.title)).toEqual([
        'Ticket filed',
      ]);
    });

    it('traces it: the write with its traceparent, its journal outcome unresolved, then the wait for the person', async () => {
      const catalog = new FakeCatalog();
      const { tracing, spans } = memoryTracing();
      const { task, input } = await waitingTask(catalog, tracing);
      await input.execute('acme', task.id, { text: 'TCK-1', resolution: 'done' });
      const inTrace = spans().filter((span) => span.spanContext().traceId === taskTraceId(task.id));
      const write = inTrace.find((span) => span.name === 'execute_tool create_ticket')!;
      expect(write.attributes).toMatchObject({
        'vigil.tool.effect': 'write',
        'vigil.tool.journal': 'unresolved',
        'vigil.tool.outcome': 'error',
      });
      const [call] = catalog.gateway.callsOf('create_ticket');
      expect(call.traceparent).toBe(`00-${taskTraceId(task.id)}-${write.spanContext().spanId}-01`);
      const wait = inTrace.find((span) => span.name === 'vigil.human_wait')!;
      expect(wait.parentSpanContext?.spanId).toBe(attemptSpanId(task.id, task.attempt));
      expect(wait.attributes).toMatchObject({
        'vigil.human.reason': 'unresolved_write',
        'vigil.human.resolution': 'done',
      });
      // No content capture: neither the question nor the answer is on the span.
      expect(wait.attributes['vigil.human.answer']).toBeUndefined();
      const slice = inTrace.find((span) => span.name === 'vigil.slice')!;
      expect(slice.attributes['vigil.slice.outcome']).toBe('waiting_on_human');
    });

    it('"not_done": the write is made exactly once more', async () => {
      const catalog = new FakeCatalog();
      const { task, input, runner } = await waitingTask(catalog);
      await input.execute('acme', task.id, { text: 'it is not in the tracker', resolution: 'not_done' });
      expect((await harness.runSlices(runner, task.id)).at(-1)).toBe('verifying');
      expect(catalog.gateway.callsOf('create_ticket')).toHaveLength(2);
      const [entry] = await journalOf(task.id);
      expect(entry).toMatchObject({ state: 'done', result: { id: 'TCK-2' } });
    });
  });
});
