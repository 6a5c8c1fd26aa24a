import { StepRecorder, TaskRepository, TaskScripts, WriteJournal, type NewTask } from '@vigil/tasks';
import { type CommandMeasurement, measureCommands, noiseNote } from './commandstats';
import type { BenchContext } from './context';
import type { BenchResults } from './result';
import { RoundTripCounter } from './round-trips';
import { BENCH_CLAIM, benchLifecycle } from './tasks';

/** Steps per commandstats window. */
export const STEP_OPS = 2;
/** Steps whose round trips are counted on the client. */
export const STEP_RT_OPS = 20;

/**
 * The Worker's step bookkeeping on one bench connection whose requests are counted: the task
 * repository, step recorder and write journal, as a Worker holds them, over `task` created under
 * `id` with its first slice claimed.
 */
export async function countedStepStores(ctx: BenchContext, id: string, newTask: NewTask) {
  const connection = ctx.connect();
  const counter = new RoundTripCounter(connection);
  const scripts = new TaskScripts(connection);
  const tasks = new TaskRepository(connection, ctx.keys, ctx.config, scripts);
  const recorder = new StepRecorder(connection, ctx.keys, ctx.config, scripts);
  const journal = new WriteJournal(connection, ctx.keys, scripts);
  const { task } = await tasks.create(id, newTask);
  await benchLifecycle(connection, ctx.keys, ctx.config).claimSlice(task, { attempt: 1, ...BENCH_CLAIM });
  return { counter, tasks, recorder, journal, task };
}

/** One kind of step a bench measures, with what its two results say. */
export interface StepKind {
  kind: 'read' | 'write';
  /** Runs step number `index` (each index once). */
  run: (index: number) => Promise<void>;
  /** Round trips a step of this kind should take. */
  target: number;
  /** What the notes call such a step (`read`, `mission write`). */
  stepName: string;
  /** The round-trip result's note. */
  roundTripNote: string;
  /** What the commands behind a step are, for the commands result's note. */
  commands: string;
}

/**
 * For each kind in order: ten warm-up steps (scripts cached on the server), INFO commandstats per
 * step over `windows` windows of STEP_OPS steps (the cleanest kept), then the client's round trips
 * over STEP_RT_OPS steps; the results `<prefix>.<kind>.round_trips` and `.redis_commands`.
 */
export async function measureStepKinds(
  ctx: BenchContext,
  counter: RoundTripCounter,
  prefix: string,
  windows: number,
  kinds: StepKind[],
): Promise<BenchResults> {
  const results: BenchResults = {};
  let offset = 0;
  for (const { kind, run, target, stepName, roundTripNote, commands } of kinds) {
    for (let i = 0; i < 10; i++) await run(offset++);
    const stats: CommandMeasurement = await measureCommands(ctx.stats, STEP_OPS, windows, (i) =>
      run(offset + i),
    );
    offset += STEP_OPS * windows;
    counter.reset();
    for (let i = 0; i < STEP_RT_OPS; i++) await run(offset++);
    results[`${prefix}.${kind}.round_trips`] = {
      value: counter.roundTrips / STEP_RT_OPS,
      unit: `round trips/${kind} step`,
      target: String(target),
      note: roundTripNote,
      details: { scriptCallsPerStepFromCommandstats: stats.scriptCallsPerOp },
    };
    results[`${prefix}.${kind}.redis_commands`] = {
      value: stats.totalPerOp,
      unit: `Redis commands/${kind} step`,
      note:
        `INFO commandstats delta per ${stepName} step (windows of ${STEP_OPS}), cleanest of ${windows} windows: ` +
        commands +
        noiseNote(stats),
      details: { perStep: stats.perOp, agreeingWindows: `${stats.agreeingWindows}/${stats.windows}` },
    };
  }
  return results;
}
