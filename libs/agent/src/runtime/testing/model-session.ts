import { noopKind, TaskKind } from '@vigil/kinds';
import type { RedisTestContext } from '@vigil/testing';
import type { TaskRecord } from '@vigil/tasks';
import type { ModelProvider } from '../../models/model-provider';
import { GlobalSpendGate } from '../global-spend.gate';
import type { SliceContext } from '../slice-context';
import { SliceSession } from '../slice-session';
import { StepRecorder } from '../step-recorder';
import { ToolExecutor } from '../tool-executor';
import { WriteJournal } from '../write-journal';

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
    attempt: 1,
    slice: 1,
    signal: new AbortController().signal,
    config: ctx.config,
    recorder,
    executor: new ToolExecutor(new WriteJournal(recorder, ctx.keys)),
    spend: new GlobalSpendGate(ctx.redis, ctx.keys, recorder, ctx.config),
    scripted: () => {
      throw new Error('not a scripted run');
    },
  });
}
