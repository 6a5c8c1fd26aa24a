import { BUILT_IN_KINDS, noopKind } from '@vigil/builtin-kinds';
import { KindBinder, KindRegistry, kindServices, type KindTool, type TaskKind } from '@vigil/kinds';
import { StoreFullError, TaskRepository, type JournalEntry } from '@vigil/tasks';
import {
  FakeToolGateway,
  newNoopTask,
  RedisTestContext,
  SliceRunnerHarness,
  SliceSessionHarness,
  SmallRedis,
  TestModel,
} from '@vigil/testing';
import type { GenerateResult } from '@vigil/agent';

/** An external write that counts the calls made to it; `afterCall` runs after each one. */
class CountedWrite {
  calls = 0;
  afterCall: (calls: number) => Promise<void> = async () => undefined;

  readonly tool: KindTool = {
    name: 'counted_write',
    description: 'Makes one external write, counted.',
    parameters: {
      type: 'object',
      properties: { index: { type: 'integer', minimum: 0 } },
      required: ['index'],
      additionalProperties: false,
    },
    effect: 'write',
    stepKey: (args) => `write:${String(args.index)}`,
    execute: async (args) => {
      this.calls++;
      await this.afterCall(this.calls);
      return { written: args.index };
    },
  };
}

/** The noop kind with its step made an external write, so every step is journalled first. */
function countedKind(write: CountedWrite): TaskKind {
  return {
    ...(noopKind as TaskKind),
    name: 'counted_write',
    tools: [write.tool],
    scriptedPlan: (input: unknown) =>
      Array.from({ length: (input as { steps: number }).steps }, (_, index) => ({
        key: `write:${index}`,
        tool: 'counted_write',
        args: { index },
      })),
  };
}

/** A free model that asks for the next write; before its `fillAt`-th answer it fills Redis. */
class FillingModel extends TestModel {
  constructor(
    private readonly fillAt: number,
    private readonly fill: () => Promise<void>,
  ) {
    super();
  }

  protected async reply(_request: unknown, call: number): Promise<GenerateResult> {
    if (call === this.fillAt) await this.fill();
    return {
      text: '',
      toolCalls: [{ id: `c${call}`, name: 'counted_write', args: { index: call } }],
      usage: { inputTokens: 0, outputTokens: 0 },
    };
  }
}

/**
 * A Worker when Redis fills mid-slice (docs/operations.md, "A full Redis"): a write it cannot
 * journal is never made, and the slice ends without a failure, keeping the last recorded step.
 */
describe('a slice when Redis is full', () => {
  let small: SmallRedis;
  let ctx: RedisTestContext;
  let tasks: TaskRepository;
  let sessions: SliceSessionHarness;
  let runners: SliceRunnerHarness;
  const write = new CountedWrite();

  beforeAll(async () => {
    small = await SmallRedis.start({ portOffset: 1 });
    ctx = new RedisTestContext('store-full-slice', { REDIS_URL: small.url, SLICE_MAX_STEPS: '10' });
    tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
    sessions = new SliceSessionHarness(ctx);
    runners = new SliceRunnerHarness(ctx);
  });
  beforeEach(() => {
    write.calls = 0;
    write.afterCall = async () => undefined;
  });
  afterEach(() => small.free());
  afterAll(async () => {
    await ctx?.close();
    await small?.stop();
  });

  const journalOf = async (id: string) =>
    Object.fromEntries(
      Object.entries(await ctx.redis.hgetall(ctx.keys.journal(id))).map(([key, raw]) => [
        key,
        (JSON.parse(raw) as JournalEntry).state,
      ]),
    );

  it('makes no tool call once the intent of the next write is refused: the step loop ends on StoreFullError', async () => {
    const kind = countedKind(write);
    const running = await sessions.runningTask(
      'journal-refused',
      newNoopTask({ kind: 'counted_write', input: { steps: 5 }, totalUnits: 5 }),
    );
    const task = running;
    const context = await sessions.contexts.load(task.id);
    const model = new FillingModel(2, () => small.fill());
    const session = sessions.session({
      task: running,
      context,
      contextVersion: running.contextVersion,
      writer: 'store-full-run',
      provider: model,
      kind,
    });

    await expect(session.run()).rejects.toBeInstanceOf(StoreFullError);
    // The model asked for a third write; its intent was refused, so it was never made.
    expect(model.calls).toBe(3);
    expect(write.calls).toBe(2);
    expect(await journalOf(task.id)).toEqual({ 'write:0': 'done', 'write:1': 'done' });
    await small.free();
    expect(await tasks.get(task.id)).toMatchObject({
      status: 'running',
      attempt: 1,
      completedUnits: 2,
      retryCount: 0,
      retryHistory: [],
    });
  });

  it('ends the slice `store_full` when a made write cannot be recorded: no further call, no failed attempt', async () => {
    const kind = countedKind(write);
    const runner = runners.runner(new FakeToolGateway([]), {
      kinds: new KindBinder(
        new KindRegistry([...BUILT_IN_KINDS, kind]),
        kindServices(runners.config, new FakeToolGateway([])),
      ),
    });
    const { task } = await tasks.create(
      'record-refused',
      newNoopTask({ kind: 'counted_write', input: { steps: 6 }, totalUnits: 6 }),
    );
    // The second write is made, then Redis fills before its result can be recorded.
    write.afterCall = async (calls) => {
      if (calls === 2) await small.fill();
    };

    const outcome = await runner.run({ taskId: task.id, attempt: 1, slice: 1, reason: 'created' });
    expect(outcome).toBe('store_full');
    expect(write.calls).toBe(2);
    await small.free();
    expect(await tasks.get(task.id)).toMatchObject({
      status: 'running',
      attempt: 1,
      completedUnits: 1,
      retryCount: 0,
      retryHistory: [],
    });
    // The made write's intent stays without its result: the next slice looks it up before writing.
    expect(await journalOf(task.id)).toEqual({ 'write:0': 'done', 'write:1': 'intent' });
    expect(await ctx.wakeQueue(0).getJobCounts('waiting')).toEqual({ waiting: 0 });
  });
});
