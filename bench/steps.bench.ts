import { StepRecorder, TaskRepository, TaskScripts, WriteJournal } from '@vigil/tasks';
import { CommandMeasurement, measureCommands, noiseNote } from './lib/commandstats';
import { BenchContext } from './lib/context';
import type { Bench, BenchResults } from './lib/result';
import { RoundTripCounter } from './lib/round-trips';
import { BENCH_CLAIM, benchLifecycle, noopTask } from './lib/tasks';

const OPS = 2;
const WINDOWS = 30;
const RT_OPS = 20;

/**
 * Issue 3: what one tool step costs in bookkeeping (action log, done step, saved output, journal
 * result, heartbeat with progress, deadline index, task.progress event), with the Worker's own
 * StepRecorder and WriteJournal on one connection. A read step is one record-step call; a write
 * step journals its intent first (journal-intent), then records the step with the result.
 */
export const runStepsBench: Bench = async () => {
  const ctx = new BenchContext('steps');
  try {
    const connection = ctx.connect();
    const counter = new RoundTripCounter(connection);
    const scripts = new TaskScripts(connection);
    const tasks = new TaskRepository(connection, ctx.keys, ctx.config, scripts);
    const recorder = new StepRecorder(connection, ctx.keys, ctx.config, scripts);
    const journal = new WriteJournal(connection, ctx.keys, scripts);
    const { task } = await tasks.create('steps-1', noopTask(100_000));
    await benchLifecycle(connection, ctx.keys, ctx.config).claimSlice(task, { attempt: 1, ...BENCH_CLAIM });

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

    const results: BenchResults = {};
    let offset = 0;
    for (const [kind, step, target] of [
      ['read', readStep, 1],
      ['write', writeStep, 2],
    ] as const) {
      for (let i = 0; i < 10; i++) await step(offset++); // warm-up: scripts cached on the server
      const stats: CommandMeasurement = await measureCommands(ctx.stats, OPS, WINDOWS, (i) =>
        step(offset + i),
      );
      offset += OPS * WINDOWS;
      counter.reset();
      for (let i = 0; i < RT_OPS; i++) await step(offset++);
      results[`steps.${kind}.round_trips`] = {
        value: counter.roundTrips / RT_OPS,
        unit: `round trips/${kind} step`,
        target: String(target),
        note: `Client-side count of requests sent by the Worker's StepRecorder${kind === 'write' ? ' + WriteJournal' : ''} over ${RT_OPS} ${kind} steps.`,
        details: { scriptCallsPerStepFromCommandstats: stats.scriptCallsPerOp },
      };
      results[`steps.${kind}.redis_commands`] = {
        value: stats.totalPerOp,
        unit: `Redis commands/${kind} step`,
        note:
          `INFO commandstats delta per ${kind} step (windows of ${OPS}), cleanest of ${WINDOWS} windows: ` +
          (kind === 'read'
            ? 'the record-step script and every command it runs'
            : 'the journal-intent and record-step scripts and every command they run') +
          ' (action log, done set, outputs, journal, heartbeat fields, deadline index, task.progress event).' +
          noiseNote(stats),
        details: { perStep: stats.perOp, agreeingWindows: `${stats.agreeingWindows}/${stats.windows}` },
      };
    }
    return results;
  } finally {
    await ctx.close();
  }
};
