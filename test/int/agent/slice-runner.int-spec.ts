import { Queue } from 'bullmq';
import { bullConnection, SliceQueue, WakeQueue } from '@vigil/queue';
import {
  ControlSignals,
  redisTaskLifecycle,
  SpendLedger,
  StepRecorder,
  TaskContextStore,
  TaskRepository,
  WriteJournal,
} from '@vigil/tasks';
import { RedisTestContext, newNoopTask, FakeToolGateway, builtInKindBinder } from '@vigil/testing';
import {
  ActiveSlices,
  CallWatchdog,
  GlobalSpendGate,
  LoopLag,
  ModelProviders,
  SliceContextCache,
  SliceRunner,
  SliceServices,
  ToolExecutor,
} from '@vigil/agent';

/** The slice runner in-process, with the scripted agent, against real Redis and a real slice queue. */
describe('SliceRunner and held contexts', () => {
  const ctx = new RedisTestContext('slice-runner', { SLICE_MAX_STEPS: '2', GLOBAL_SPEND_LIMIT_USD: '' });
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const recorder = new StepRecorder(ctx.redis, ctx.keys, ctx.config);
  const wakeQueue = new Queue(ctx.keys.wakeQueueName(0), {
    connection: bullConnection(ctx.config.redisUrl),
    prefix: ctx.prefix,
  });
  const queue = new Queue(ctx.keys.sliceQueueName(0), {
    connection: bullConnection(ctx.config.redisUrl),
    prefix: ctx.prefix,
  });
  const held = new SliceContextCache(ctx.config);
  const runner = new SliceRunner(
    tasks,
    redisTaskLifecycle(ctx.redis, ctx.keys, ctx.config, {
      slices: new SliceQueue([queue], ctx.keys),
      wakeups: new WakeQueue([wakeQueue], ctx.keys),
    }),
    new TaskContextStore(ctx.redis, ctx.keys),
    held,
    builtInKindBinder(ctx.config, new FakeToolGateway([])),
    new ActiveSlices(new ControlSignals(ctx.redis, ctx.keys), ctx.config),
    new SliceServices(
      recorder,
      new ToolExecutor(new WriteJournal(ctx.redis, ctx.keys)),
      new ModelProviders(
        { ...ctx.sections.models, anthropicApiKey: '', geminiApiKey: '' },
        ctx.sections.clocks,
      ),
      new GlobalSpendGate(new SpendLedger(ctx.redis, ctx.keys), ctx.config),
      new SpendLedger(ctx.redis, ctx.keys),
      new CallWatchdog(ctx.config),
      new LoopLag(),
      ctx.config,
      'worker-under-test',
    ),
  );
  afterAll(async () => {
    await queue.close();
    await wakeQueue.close();
    await ctx.close();
  });

  async function runToEnd(taskId: string, firstSlice: number) {
    const outcomes: string[] = [];
    for (let slice = firstSlice; slice < firstSlice + 20; slice++) {
      const outcome = await runner.run({ taskId, attempt: 1, slice, reason: 'next_slice' });
      outcomes.push(outcome);
      if (outcome !== 'next_slice') break;
    }
    return outcomes;
  }

  const stepKeys = async (taskId: string) =>
    (await ctx.redis.lrange(ctx.keys.actions(taskId), 0, -1))
      .map((raw) => JSON.parse(raw) as { tool: string; key: string | null })
      .filter((action) => action.tool === 'noop_step')
      .map((action) => action.key);

  it('runs later slices from the held context, and never holds on to another task under a reused id', async () => {
    const id = 'reused-id';
    await tasks.create(id, newNoopTask({ input: { steps: 6 }, totalUnits: 6 }));
    const slice = (n: number) => runner.run({ taskId: id, attempt: 1, slice: n, reason: 'next_slice' });
    expect([await slice(1), await slice(2)]).toEqual(['next_slice', 'next_slice']);
    expect(held.starts).toEqual({ held: 1, stale: 0, none: 1 });
    expect(await stepKeys(id)).toEqual(['step:0', 'step:1', 'step:2', 'step:3']);

    // Redis lost the task; the same id comes back (a replayed Idempotency-Key) with another input.
    await ctx.cleanup();
    await tasks.create(id, newNoopTask({ input: { steps: 3 }, totalUnits: 3 }));
    const outcomes = await runToEnd(id, 1);
    expect(outcomes.at(-1)).toBe('verifying');
    expect(await stepKeys(id)).toEqual(['step:0', 'step:1', 'step:2']);
    expect(held.starts.stale).toBe(1);
  });
});
