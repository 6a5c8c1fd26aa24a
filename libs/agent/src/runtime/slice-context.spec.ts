import { RedisTestContext, newNoopTask } from '@vigil/testing';
import { TaskRepository } from '@vigil/tasks';
import type { GenerateRequest, GenerateResult, ModelProvider } from '../models/model-provider';
import { HeldContext, SliceContext, SliceContextCache } from './slice-context';
import { StepRecorder } from './step-recorder';
import { TaskContextStore } from './task-context.store';
import { modelSession } from './testing/model-session';

/** Asks for noop steps 0, 1, 2, … and records a finding after step 1; `during` runs before each call. */
class StepModel implements ModelProvider {
  readonly name = 'opus';
  readonly modelId = 'claude-test';
  calls = 0;
  constructor(private readonly during: (call: number) => Promise<void> = async () => undefined) {}
  async generate(_request: GenerateRequest): Promise<GenerateResult> {
    const call = this.calls++;
    await this.during(call);
    const toolCall =
      call === 2
        ? { id: `c${call}`, name: 'record_finding', args: { text: 'step 1 looked fine' } }
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
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const recorder = new StepRecorder(ctx.redis, ctx.keys, ctx.config);
  const store = new TaskContextStore(ctx.redis, ctx.keys);
  afterAll(() => ctx.close());

  async function runningTask(id: string) {
    const { task } = await tasks.create(id, newNoopTask({ input: { steps: 10 }, totalUnits: 10 }));
    await tasks.transition(task, 'running', { attempt: 1 });
    return (await tasks.get(id))!;
  }

  async function runSlice(id: string, model: ModelProvider, held?: HeldContext) {
    const { task, context } = await store.loadForSlice(id, held);
    const session = modelSession(ctx, recorder, {
      task: task!,
      context,
      contextVersion: task!.contextVersion,
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

  it('leaves a slice with exactly the context a fresh read returns, at the current version', async () => {
    const id = 'held-exact';
    await runningTask(id);
    const { result, held } = await runSlice(id, new StepModel());
    expect(result.end).toBe('next_slice');
    expect(held).toBeDefined();
    const fresh = await store.loadForSlice(id);
    expect(fresh.reused).toBe(false);
    expect(held!.version).toBe(fresh.task!.contextVersion);
    expect(held!.version).toBe(4);
    expect(plain(held!.context)).toEqual(plain(fresh.context));
    expect(plain(fresh.context).doneSteps).toEqual(['step:0', 'step:1', 'step:2']);
    expect(fresh.context.findings).toHaveLength(1);
  });

  it('reuses a held context only while the attempt and the context version match', async () => {
    const id = 'held-reuse';
    await runningTask(id);
    const { held } = await runSlice(id, new StepModel());

    const reused = await store.loadForSlice(id, held);
    expect(reused.reused).toBe(true);
    expect(reused.context).toBe(held!.context);

    // Another worker ran a slice in between: the held context misses its step and is read again.
    await recordStepElsewhere(id, 7);
    const stale = await store.loadForSlice(id, held);
    expect(stale.reused).toBe(false);
    expect(stale.context.doneSteps.has('step:7')).toBe(true);
    expect(stale.context.outputs.get('step:7')).toEqual({ index: 7, done: true, by: 'another worker' });

    // A held context of an earlier attempt is never reused, even at an equal version.
    const current = await store.loadForSlice(id);
    const version = current.task!.contextVersion;
    const older = await store.loadForSlice(id, { attempt: 2, version, context: held!.context });
    expect(older.reused).toBe(false);
    const same = await store.loadForSlice(id, { attempt: 1, version, context: held!.context });
    expect(same.reused).toBe(true);

    const missing = await store.loadForSlice('no-such-task', held);
    expect(missing).toMatchObject({ task: null, reused: false });
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

  it('bounds the held contexts, dropping the least recently stored first', () => {
    const cache = new SliceContextCache(ctx.config);
    expect(cache.capacity).toBe(64);
    const entry = (version: number): HeldContext => ({
      attempt: 1,
      version,
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
