import { TaskKind, kindServices } from '@vigil/kinds';
import {
  SpendLedger,
  WriteJournal,
  type SliceContext,
  type StepRecorder,
  type TaskRecord,
} from '@vigil/tasks';
import {
  CallWatchdog,
  GlobalSpendGate,
  type ModelProvider,
  ModelSpend,
  SliceSession,
  ToolExecutor,
} from '@vigil/agent';
import type { RedisTestContext } from '../redis-test-context';
import { FakeToolGateway } from '../kinds/fake-tool-gateway';
import { noopKind } from '@vigil/builtin-kinds';

/** A noop task's slice (attempt 1, slice 1) driven by a test model, on the test's real Redis. */
export function modelSession(
  ctx: RedisTestContext,
  recorder: StepRecorder,
  slice: {
    task: TaskRecord;
    context: SliceContext;
    contextVersion: number;
    writer: string;
    provider: ModelProvider;
  },
): SliceSession {
  return new SliceSession({
    ...slice,
    kind: noopKind as TaskKind,
    tools: noopKind.tools as TaskKind['tools'],
    services: kindServices(ctx.config, new FakeToolGateway([])),
    attempt: 1,
    slice: 1,
    signal: new AbortController().signal,
    config: ctx.config,
    recorder,
    executor: new ToolExecutor(new WriteJournal(ctx.redis, ctx.keys)),
    money: new ModelSpend(
      new SpendLedger(ctx.redis, ctx.keys),
      new GlobalSpendGate(new SpendLedger(ctx.redis, ctx.keys), ctx.config),
      { id: slice.task.id, attempt: 1, budgetUsd: slice.task.budgetUsd },
    ),
    watchdog: new CallWatchdog(ctx.config),
    onHungCall: (call) => {
      throw new Error(`unexpected hung call in a test session: ${JSON.stringify(call)}`);
    },
    draining: () => false,
    codeVersion: 'test',
  });
}
