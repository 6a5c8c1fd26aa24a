import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Bench, BenchResult, BenchResults } from './result';

function isResult(value: unknown): value is BenchResult {
  return typeof value === 'object' && value !== null && 'value' in value && 'unit' in value;
}

/**
 * Accepts one result, a map of results, or `{ results }`, and names them under `notifier.`. An
 * entry without `{ value, unit }` is kept whole under `details`, marked as such, never dropped.
 */
export function normalizeNotifierResults(raw: unknown): BenchResults {
  if (isResult(raw)) return { notifier: { ...raw, note: raw.note ?? '' } };
  const map = (raw as { results?: unknown })?.results ?? raw;
  if (typeof map !== 'object' || map === null) throw new Error('runNotifierBench returned no results');
  const out: BenchResults = {};
  for (const [name, value] of Object.entries(map as Record<string, unknown>)) {
    const key = name.startsWith('notifier') ? name : `notifier.${name}`;
    out[key] = isResult(value)
      ? { ...value, note: value.note ?? '' }
      : {
          value: null,
          unit: '(see details)',
          note: 'reported by bench/notifier.bench.ts without { value, unit }; its raw figures are in details',
          details: value as Record<string, unknown>,
        };
  }
  return out;
}

/**
 * The notifier's bench lives in bench/notifier.bench.ts (written separately); when that file is
 * absent this reports it as not available instead of failing the run.
 */
export const runNotifierBenchIfPresent: Bench = async ({ quick }) => {
  const file = ['ts', 'js'].map((ext) => join(__dirname, `../notifier.bench.${ext}`)).find(existsSync);
  if (!file) {
    return {
      notifier: {
        value: 'not available',
        unit: '',
        note: 'bench/notifier.bench.ts is not in this checkout; the notifier due-selection bench was skipped.',
      },
    };
  }
  const specifier = '../notifier.bench';
  const module = (await import(specifier)) as { runNotifierBench?: (options: { quick: boolean }) => unknown };
  if (typeof module.runNotifierBench !== 'function') {
    return {
      notifier: {
        value: 'not available',
        unit: '',
        note: 'bench/notifier.bench.ts exports no runNotifierBench({ quick }); skipped.',
      },
    };
  }
  return normalizeNotifierResults(await module.runNotifierBench({ quick }));
};
