import { median } from './stats';

// What paired bench runs show: each figure of this build ÷ the same figure of a baseline build,
// pair by pair, and the median of those ratios (docs/benchmarks.md, "Paired runs against a
// baseline"). A ratio is only taken within a pair: the two runs of a pair follow each other, so
// they see the same machine, which on a shared two-core machine moves by half within an hour.

/** A bench run's `results`, or any part of them. */
type Results = unknown;

/** One figure over the pairs: its values on each side, their ratios pair by pair, and the median ratio. */
export interface PairedFigure {
  current: number[];
  baseline: number[];
  ratios: number[];
  medianRatio: number;
}

/** Every finite number in `value`, by its dotted path (`a.b.c`); arrays by index. */
export function numbersOf(
  value: Results,
  prefix = '',
  into: Record<string, number> = {},
): Record<string, number> {
  if (typeof value === 'number') {
    if (Number.isFinite(value)) into[prefix] = value;
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value))
      numbersOf(inner, prefix ? `${prefix}.${key}` : key, into);
  }
  return into;
}

/**
 * `pairs`: one `{ current, baseline }` per pair, each the `results` of a bench run's JSON. Answers,
 * for every figure both runs of every pair have, the figures and their ratios (this build ÷ the
 * baseline, rounded to 3 places) pair by pair, and the median ratio. A figure that is 0 in a
 * baseline run has no ratio and is left out.
 */
export function summarizePairs(
  pairs: readonly { current: Results; baseline: Results }[],
): Record<string, PairedFigure> {
  if (pairs.length === 0) throw new Error('no pairs to summarize');
  const flat = pairs.map(({ current, baseline }) => ({
    current: numbersOf(current),
    baseline: numbersOf(baseline),
  }));
  const figures: Record<string, PairedFigure> = {};
  for (const path of Object.keys(flat[0].current)) {
    if (!flat.every((pair) => path in pair.current && path in pair.baseline && pair.baseline[path] !== 0))
      continue;
    const ratios = flat.map((pair) => round(pair.current[path] / pair.baseline[path]));
    figures[path] = {
      current: flat.map((pair) => pair.current[path]),
      baseline: flat.map((pair) => pair.baseline[path]),
      ratios,
      medianRatio: round(median(ratios)),
    };
  }
  return figures;
}

/** The headline figures: each bench result's `value`, then the throughput details a reader asks for first. */
export function headlineOf(figures: Record<string, PairedFigure>): Record<string, PairedFigure> {
  const wanted = (path: string) =>
    /^[^.]+\.[^.]+\.value$/.test(path) ||
    /^throughput\.steps_vs_raw_bullmq_ratio\.details\.(vigilStepsPerSec|rawJobsPerSec|perVigilStep\.(processCpuMs|mainThreadCpuMs|redisCpuMs|commands))$/.test(
      path,
    ) ||
    /^throughput\.stack_cpu_ms_per_step\.details\.(byApp\.[a-z]+|redisCpuMs|appsCpuMs)$/.test(path);
  return Object.fromEntries(Object.entries(figures).filter(([path]) => wanted(path)));
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
