import { TaskKind, kindServices } from '@vigil/kinds';
import { SpendLedger, StepRecorder, WriteJournal, type SliceContext, type TaskRecord } from '@vigil/tasks';
import {
  CallWatchdog,
  GlobalSpendGate,
  PaidModelCall,
  RecordedStepLedger,
  type GenerateRequest,
  type GenerateResult,
  type ModelProvider,
  ModelSpend,
  SliceSession,
  ToolExecutor,
} from '@vigil/agent';
import type { RedisTestContext } from '../redis-test-context';
import { FakeToolGateway } from '../kinds/fake-tool-gateway';
import { TaskHarness } from '../task-harness';
import { noopKind } from '@vigil/builtin-kinds';

/**
 * Slice sessions of noop tasks driven by a test model, on the test's real Redis: a TaskHarness with
 * the step recorder, and `session` for attempt 1, slice 1.
 */
export class SliceSessionHarness extends TaskHarness {
  readonly recorder: StepRecorder;

  constructor(ctx: RedisTestContext) {
    super(ctx);
    this.recorder = new StepRecorder(ctx.redis, ctx.keys, ctx.config);
  }

  /**
   * The slice session of `task` (attempt 1, slice 1) from `context`, its model `provider`; the task
   * is of the noop kind unless `kind` says otherwise.
   */
  session(slice: {
    task: TaskRecord;
    context: SliceContext;
    contextVersion: number;
    writer: string;
    provider: ModelProvider;
    kind?: TaskKind;
  }): SliceSession {
    const { ctx, recorder } = this;
    const { task, context, contextVersion, writer, provider } = slice;
    const kind = slice.kind ?? (noopKind as TaskKind);
    return new SliceSession({
      slice: {
        task,
        kind,
        tools: kind.tools,
        kindServices: kindServices(ctx.config, new FakeToolGateway([])),
        attempt: 1,
        slice: 1,
        context,
        signal: new AbortController().signal,
      },
      ledger: new RecordedStepLedger(recorder, {
        taskId: task.id,
        attempt: 1,
        slice: 1,
        context,
        contextVersion,
        writer,
        codeVersion: 'test',
      }),
      model: new PaidModelCall(
        provider,
        new ModelSpend(
          new SpendLedger(ctx.redis, ctx.keys),
          new GlobalSpendGate(new SpendLedger(ctx.redis, ctx.keys), ctx.config),
          { id: task.id, attempt: 1, budgetUsd: task.budgetUsd },
        ),
        ctx.config,
      ),
      hooks: {
        onHungCall: (call) => {
          throw new Error(`unexpected hung call in a test session: ${JSON.stringify(call)}`);
        },
        draining: () => false,
      },
      services: {
        config: ctx.config,
        executor: new ToolExecutor(new WriteJournal(ctx.redis, ctx.keys)),
        watchdog: new CallWatchdog(ctx.config),
      },
    });
  }
}

/**
 * A model written for one test: priced as Opus (`estimateCostUsd` knows it), counting its calls;
 * `reply` answers call number `call` (0 for the first).
 */
export abstract class TestModel implements ModelProvider {
  readonly name = 'opus';
  readonly modelId = 'claude-test';
  calls = 0;

  generate(request: GenerateRequest): Promise<GenerateResult> {
    return this.reply(request, this.calls++);
  }

  protected abstract reply(request: GenerateRequest, call: number): Promise<GenerateResult>;
}
