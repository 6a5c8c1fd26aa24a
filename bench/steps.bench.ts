import { BenchContext } from './lib/context';
import type { Bench } from './lib/result';
import { countedStepStores, measureStepKinds, STEP_RT_OPS } from './lib/step-costs';
import { noopTask } from './lib/tasks';

const WINDOWS = 30;

/**
 * Issue 3: what one tool step costs in bookkeeping (action log, done step, saved output, journal
 * result, heartbeat with progress, deadline index, task.progress event), with the Worker's own
 * StepRecorder and WriteJournal on one connection. A read step is one record-step call; a write
 * step journals its intent first (journal-intent), then records the step with the result.
 */
export const runStepsBench: Bench = async () => {
  const ctx = new BenchContext('steps');
  try {
    const { counter, recorder, journal, task } = await countedStepStores(ctx, 'steps-1', noopTask(100_000));

    const readStep = async (i: number) => {
      const startedAt = Date.now();
      const args = { index: i };
      await recorder.record({
        taskId: task.id,
        attempt: 1,
        action: {
          attempt: 1,
          slice: 1,
          tool: 'noop_step',
          key: `step:${i}`,
          args,
          result: { index: i, done: true },
          startedAt,
          durationMs: 0,
        },
        succeeded: true,
        outputJson: JSON.stringify({ index: i, done: true }),
        currentStep: `noop_step step:${i}`,
      });
    };
    const writeStep = async (i: number) => {
      const key = `write:${i}`;
      const args = { name: `object ${i}` };
      const state = await journal.begin(task.id, 1, key, args);
      if (state.state !== 'new') throw new Error(`journal already had ${key}`);
      const result = { id: `obj_${i}` };
      await recorder.record({
        taskId: task.id,
        attempt: 1,
        action: {
          attempt: 1,
          slice: 1,
          tool: 'create_object',
          key,
          args,
          result,
          startedAt: Date.now(),
          durationMs: 0,
        },
        succeeded: true,
        outputJson: JSON.stringify(result),
        journal: { state: 'done', attempt: 1, at: Date.now(), result },
        currentStep: `create_object ${key}`,
      });
    };

    const writes =
      ' (action log, done set, outputs, journal, heartbeat fields, deadline index, task.progress event).';
    return await measureStepKinds(ctx, counter, 'steps', WINDOWS, [
      {
        kind: 'read',
        run: readStep,
        target: 1,
        stepName: 'read',
        roundTripNote: `Client-side count of requests sent by the Worker's StepRecorder over ${STEP_RT_OPS} read steps.`,
        commands: 'the record-step script and every command it runs' + writes,
      },
      {
        kind: 'write',
        run: writeStep,
        target: 2,
        stepName: 'write',
        roundTripNote: `Client-side count of requests sent by the Worker's StepRecorder + WriteJournal over ${STEP_RT_OPS} write steps.`,
        commands: 'the journal-intent and record-step scripts and every command they run' + writes,
      },
    ]);
  } finally {
    await ctx.close();
  }
};
