import { TaskKind } from '@vigil/kinds';
import { newNoopTask, RedisTestContext, SliceSessionHarness, TEST_CLAIM, TestModel } from '@vigil/testing';
import { HeldContext, SliceContext, TaskScripts } from '@vigil/tasks';
import {
  buildPrompt,
  type GenerateRequest,
  type GenerateResult,
  HeldSliceContext,
  type ModelProvider,
  SliceContextCache,
} from '@vigil/agent';
import { noopKind } from '@vigil/builtin-kinds';

/** Asks for noop steps 0, 1, 2, … and records a finding after step 1; `during` runs before each call. */
class StepModel extends TestModel {
  constructor(private readonly during: (call: number) => Promise<void> = async () => undefined) {
    super();
  }
  protected async reply(_request: GenerateRequest, call: number): Promise<GenerateResult> {
    await this.during(call);
    const toolCall =
      call === 2
        ? { id: `c${call}`, name: 'record_finding', args: { title: 'Step 1', body: 'step 1 looked fine' } }
        : { id: `c${call}`, name: 'noop_step', args: { index: call > 2 ? call - 1 : call } };
    return { text: '', toolCalls: [toolCall], usage: { inputTokens: 10, outputTokens: 10 } };
  }
}

const plain = (context: SliceContext) => ({
  doneSteps: [...context.doneSteps].sort(),
  outputs: Object.fromEntries([...context.outputs].sort(([a], [b]) => a.localeCompare(b))),
  findings: context.findings,
});

describe('a slice context held between slices', () => {
  const ctx = new RedisTestContext('slice-context', { SLICE_MAX_STEPS: '4', WORKER_CONCURRENCY: '2' });
  const sessions = new SliceSessionHarness(ctx);
  const { tasks, recorder, contexts: store, lifecycle } = sessions;
  afterAll(() => ctx.close());

  const runningTask = (id: string) =>
    sessions.runningTask(id, newNoopTask({ input: { steps: 10 }, totalUnits: 10 }));

  async function runSlice(id: string, model: ModelProvider, held?: HeldContext, writer = 'run-1') {
    const { task, context } = await store.loadForSlice(id, held);
    await lifecycle.claimSlice(task!, { attempt: 1, ...TEST_CLAIM }).catch(() => undefined);
    const session = sessions.session({
      task: task!,
      context,
      contextVersion: task!.contextVersion,
      writer,
      provider: model,
    });
    return { result: await session.run(), held: session.heldContext() };
  }

  const recordStepElsewhere = (id: string, index: number) =>
    recorder.record({
      taskId: id,
      attempt: 1,
      action: {
        attempt: 1,
        slice: 9,
        tool: 'noop_step',
        key: `step:${index}`,
        args: { index },
        startedAt: 0,
        durationMs: 0,
      },
      succeeded: true,
      outputJson: JSON.stringify({ index, done: true, by: 'another worker' }),
      currentStep: `noop_step step:${index}`,
    });

  it('leaves a slice with exactly the context a fresh read returns, as of its last step', async () => {
    const id = 'held-exact';
    await runningTask(id);
    const { result, held } = await runSlice(id, new StepModel());
    expect(result.end).toBe('next_slice');
    expect(held).toMatchObject({ attempt: 1, actions: 4, version: 4, writer: 'run-1' });
    const fresh = await store.loadForSlice(id);
    expect(fresh.source).toBe('none');
    expect(held!.version).toBe(fresh.task!.contextVersion);
    expect(await ctx.redis.llen(ctx.keys.actions(id))).toBe(4);
    expect(plain(held!.context)).toEqual(plain(fresh.context));
    expect(plain(fresh.context).doneSteps).toEqual(['step:0', 'step:1', 'step:2']);
    expect(fresh.context.findings).toHaveLength(1);
    // The last actions, shown in full in the next opening, are the log's last three either way.
    expect(fresh.context.recentActions!.map((action) => action.step)).toEqual([2, 3, 4]);
  });

  it('reuses a held context while nothing changed, and reads it again after a step elsewhere', async () => {
    const id = 'held-reuse';
    await runningTask(id);
    const { held } = await runSlice(id, new StepModel());

    const reused = await store.loadForSlice(id, held);
    expect(reused.source).toBe('held');
    expect(reused.context).toBe(held!.context);

    // Another worker ran a slice in between: the held context misses its step and is read again.
    await recordStepElsewhere(id, 7);
    const stale = await store.loadForSlice(id, held);
    expect(stale.source).toBe('stale');
    expect(stale.context.doneSteps.has('step:7')).toBe(true);
    expect(stale.context.outputs.get('step:7')).toEqual({ index: 7, done: true, by: 'another worker' });

    const missing = await store.loadForSlice('no-such-task', held);
    expect(missing).toMatchObject({ task: null, source: 'none' });
  });

  it('never reuses a held context across a retry', async () => {
    const id = 'held-retry';
    await runningTask(id);
    const { held } = await runSlice(id, new StepModel());
    const running = (await tasks.get(id))!;
    await lifecycle.recover(running, {
      reason: 'crashed',
      detail: 'its worker is gone',
      lease: { owner: 'watcher', expiresAt: Date.now() + 60_000 },
    });
    const retrying = (await tasks.get(id))!;
    expect(retrying.attempt).toBe(2);
    await lifecycle.requeueForRetry(retrying, {
      model: 'opus',
      retryContext: { retryNumber: 1, reason: 'crashed', lastVerifiedStep: 0 },
      lease: { owner: 'watcher', expiresAt: Date.now() + 60_000 },
    });
    // Nothing else changed: same log, version and writer, but another attempt.
    expect(await store.loadForSlice(id, held)).toMatchObject({ source: 'stale' });
    expect(await store.loadForSlice(id, { ...held!, attempt: 2 })).toMatchObject({ source: 'held' });
  });

  it('does not take a history replayed after Redis lost writes for the one it holds', async () => {
    const id = 'held-rollback';
    await runningTask(id);
    const keys = [
      ctx.keys.task(id),
      ctx.keys.actions(id),
      ctx.keys.doneSteps(id),
      ctx.keys.outputs(id),
      ctx.keys.findings(id),
    ];
    const snapshot = await Promise.all(keys.map((key) => ctx.redis.dumpBuffer(key)));
    const { held } = await runSlice(id, new StepModel(), undefined, 'run-P');
    // Redis comes back from the snapshot taken before that slice; another run redoes the slice,
    // with the same number of steps, so the log's length and the version come out the same.
    await Promise.all(
      keys.map((key, i) =>
        snapshot[i] ? ctx.redis.restore(key, 0, snapshot[i]!, 'REPLACE') : ctx.redis.del(key),
      ),
    );
    const replay = await runSlice(id, new StepModel(), undefined, 'run-Q');
    expect(replay.held).toMatchObject({ actions: held!.actions, version: held!.version, writer: 'run-Q' });
    expect(await store.loadForSlice(id, held)).toMatchObject({ source: 'stale' });
    expect(await store.loadForSlice(id, replay.held)).toMatchObject({ source: 'held' });
  });

  it('reads the context again after a step by a writer that does not count versions (an older release)', async () => {
    const id = 'held-old-writer';
    await runningTask(id);
    const { held } = await runSlice(id, new StepModel());
    // What record-step.lua of the previous release did for a step: no contextVersion, no writer.
    await ctx.redis
      .multi()
      .rpush(ctx.keys.actions(id), JSON.stringify({ step: 5, tool: 'noop_step', key: 'step:8' }))
      .sadd(ctx.keys.doneSteps(id), 'step:8')
      .hset(ctx.keys.outputs(id), 'step:8', JSON.stringify({ index: 8, done: true }))
      .exec();
    const loaded = await store.loadForSlice(id, held);
    expect(loaded.source).toBe('stale');
    expect(loaded.context.doneSteps.has('step:8')).toBe(true);
  });

  it('keeps nothing when a step shows a change the slice did not make', async () => {
    const id = 'held-gap';
    await runningTask(id);
    // Before the model's second call, a step is recorded by someone else (as a zombie would try).
    const model = new StepModel(async (call) => {
      if (call === 1) await recordStepElsewhere(id, 9);
    });
    const { result, held } = await runSlice(id, model);
    expect(result.end).toBe('next_slice');
    expect(held).toBeUndefined();
  });

  it('builds the same prompt from a held context as from one read from Redis', async () => {
    const { task } = await tasks.create('held-prompt', newNoopTask({ input: { steps: 3 }, totalUnits: 3 }));
    const inOrder = (keys: string[]): SliceContext => ({
      doneSteps: new Set(keys),
      outputs: new Map(keys.map((key) => [key, { key }])),
      findings: [],
    });
    const prompt = (context: SliceContext) =>
      buildPrompt(task, noopKind as TaskKind, context, '').messages[0].content;
    // A held context lists steps in the order they were done; HGETALL and SMEMBERS in hash order.
    const held = prompt(inOrder(['step:0', 'step:2', 'step:10']));
    expect(held).toBe(prompt(inOrder(['step:10', 'step:0', 'step:2'])));
    expect(held).toContain('Completed steps (3 of 3): step:0, step:2, step:10.');
  });

  it('reads the record as the task hash holds it, whatever its fields hold, and no record for a task that is not there', async () => {
    const title = 'Quotes " and \\ backslashes,\nlines, tabs\t, emoji 🧭 and ünïcode';
    const input = { steps: 3, note: '{"not":"parsed"}', nested: { list: [1, 2, 3] } };
    await sessions.runningTask('odd-fields', newNoopTask({ title, input, totalUnits: 3 }));
    const stored = await ctx.redis.hgetall(ctx.keys.task('odd-fields'));

    const { task } = await store.loadForSlice('odd-fields');

    expect(task).toMatchObject({ title, input, totalUnits: 3 });
    expect(task).toEqual(await tasks.get('odd-fields'));
    // One string for the whole record (load-slice.lua), not a value per field and name.
    const keys = ['task', 'actions', 'doneSteps', 'outputs', 'findings', 'steering'] as const;
    const [record] = await new TaskScripts(ctx.redis).run<[unknown]>(
      'load-slice',
      keys.map((key) => ctx.keys[key]('odd-fields')),
      [0, -1, -1, '', 3],
    );
    expect(typeof record).toBe('string');
    expect(JSON.parse(record as string)).toEqual(stored);
    expect(Object.keys(stored).length).toBeGreaterThan(20);
    expect((await store.loadForSlice('no-such-task')).task).toBeNull();
  });

  it('bounds the held contexts, dropping the least recently stored first', () => {
    const cache = new SliceContextCache(ctx.config);
    expect(cache.capacity).toBe(64);
    const entry = (version: number): HeldSliceContext => ({
      attempt: 1,
      actions: version,
      version,
      writer: 'run',
      context: { doneSteps: new Set(), outputs: new Map(), findings: [] },
    });
    for (let i = 0; i < 70; i++) cache.put(`t${i}`, entry(i));
    expect(cache.size).toBe(64);
    expect(cache.take('t0')).toBeUndefined();
    expect(cache.take('t5')).toBeUndefined();
    expect(cache.take('t6')?.version).toBe(6);
    expect(cache.take('t6')).toBeUndefined();
    cache.put('t7', entry(77));
    expect(cache.take('t7')?.version).toBe(77);
  });
});
