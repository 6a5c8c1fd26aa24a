/**
 * Paired bench runs (bench/pairs.ts, bench/lib/pairs.ts): the ratios of this build ÷ a baseline are
 * taken figure by figure within each pair and their median reported, and bad arguments stop the
 * command before it builds anything (run as a process, as npm runs it).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { headlineOf, summarizePairs, type PairedFigure } from './lib/pairs';

const ROOT = join(__dirname, '..');

function benchPairs(...args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'scripts', 'run-ts.mjs'), 'bench/pairs.ts', ...args], {
    encoding: 'utf8',
  });
}

describe('paired bench runs', () => {
  const run = (stack: number, stepsPerSec: number, extra: Record<string, unknown> = {}) => ({
    'throughput.stack_cpu_ms_per_step': {
      value: stack,
      unit: 'ms',
      details: { byApp: { worker: stack / 2 } },
    },
    'throughput.steps_vs_raw_bullmq_ratio': {
      value: 1,
      details: { vigilStepsPerSec: stepsPerSec, note: 'text' },
    },
    ...extra,
  });

  it('takes each ratio within its pair and reports the median over the pairs', () => {
    const pairs = [
      { current: run(0.1, 18000), baseline: run(0.25, 11000) },
      { current: run(0.15, 12000), baseline: run(0.2, 12000) },
      { current: run(0.12, 16000), baseline: run(0.24, 10000) },
    ];
    const figures = summarizePairs(pairs);

    expect(figures['throughput.stack_cpu_ms_per_step.value']).toEqual({
      current: [0.1, 0.15, 0.12],
      baseline: [0.25, 0.2, 0.24],
      ratios: [0.4, 0.75, 0.5],
      medianRatio: 0.5,
    });
    expect(figures['throughput.stack_cpu_ms_per_step.details.byApp.worker'].medianRatio).toBe(0.5);
    expect(figures['throughput.steps_vs_raw_bullmq_ratio.details.vigilStepsPerSec'].ratios).toEqual([
      1.636, 1, 1.6,
    ]);
    // Text is no figure.
    expect(Object.keys(figures).some((path) => path.endsWith('.note') || path.endsWith('.unit'))).toBe(false);
  });

  it('leaves out a figure one run lacks or a baseline has at 0, and keeps an even count’s median between two', () => {
    const pairs = [
      {
        current: run(0.1, 10, { extra: { value: 3 }, zero: { value: 1 } }),
        baseline: run(0.2, 10, { zero: { value: 0 } }),
      },
      {
        current: run(0.3, 10, { zero: { value: 1 } }),
        baseline: run(0.2, 10, { extra: { value: 3 }, zero: { value: 2 } }),
      },
    ];
    const figures = summarizePairs(pairs);

    expect(figures['extra.value']).toBeUndefined();
    expect(figures['zero.value']).toBeUndefined();
    expect(figures['throughput.stack_cpu_ms_per_step.value'].medianRatio).toBe(1); // (0.5 + 1.5) / 2
  });

  it('heads its output with the bench values and the throughput figures a reader asks for first', () => {
    const figure: PairedFigure = { current: [1], baseline: [1], ratios: [1], medianRatio: 1 };
    const headline = headlineOf({
      'throughput.stack_cpu_ms_per_step.value': figure,
      'throughput.stack_cpu_ms_per_step.details.byApp.watcher': figure,
      'throughput.steps_vs_raw_bullmq_ratio.details.perVigilStep.processCpuMs': figure,
      'throughput.steps_vs_raw_bullmq_ratio.details.perVigilStep.byCommand.hset': figure,
    });

    expect(Object.keys(headline).sort()).toEqual([
      'throughput.stack_cpu_ms_per_step.details.byApp.watcher',
      'throughput.stack_cpu_ms_per_step.value',
      'throughput.steps_vs_raw_bullmq_ratio.details.perVigilStep.processCpuMs',
    ]);
  });

  it('refuses bad arguments before it builds anything, naming what is wrong', () => {
    const cases: [string[], RegExp][] = [
      [[], /--against <git ref> is required/],
      [['--against', 'HEAD', '--pairs', '0'], /--pairs 0: a whole number from 1 to 50/],
      [['--against', 'HEAD', '--rounds', '3'], /unknown argument --rounds/],
      [['--against', 'HEAD', '--only', 'throughput,thruput'], /--only thruput: no such bench/],
      [['--against', 'no-such-ref-anywhere'], /--against no-such-ref-anywhere: no such commit/],
    ];
    for (const [args, message] of cases) {
      const run = benchPairs(...args);
      expect({ args, status: run.status }).toEqual({ args, status: 2 });
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\[pairs\] .*building/);
    }
  });
});
