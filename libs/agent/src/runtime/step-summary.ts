/**
 * How the runtime summarises what a task has done, so a slice's prompt stays the same size however
 * long the task grows (docs/models.md, "Prompts that stay bounded").
 */

const collator = new Intl.Collator('en', { numeric: true });
/** Step keys in their natural order: step:2 before step:10, adset:0:2 before adset:0:10. */
export const byStepKey = (a: string, b: string): number => collator.compare(a, b);

/** A list of keys no longer than this is written out in full, one by one. */
const LIST_IN_FULL_CHARS = 480;
/** At most this many ranges are written; the rest are counted. */
const MAX_RANGES = 48;

/**
 * Step keys as ranges of consecutive keys, with counts: `step:0–step:139 (140)`,
 * `adset:0:0–adset:0:11 (12)`, `campaign:0`. With the plan's keys (`universe`), keys of one kind
 * (the part before the first `:`) are consecutive when nothing of that kind lies between them in
 * the plan, so `ad:0:0:0–ad:0:10:2 (33)` spans ad sets; without it, keys are consecutive when they
 * differ only by one in their last number. A short list is written in full
 * (`step:0, step:2, step:10`), and past MAX_RANGES ranges the rest are only counted, so the
 * summary is bounded whatever the keys.
 */
export function summariseKeys(keys: Iterable<string>, universe?: Iterable<string>): string {
  const sorted = [...new Set(keys)].sort(byStepKey);
  if (sorted.length === 0) return 'none yet';
  const full = sorted.join(', ');
  if (full.length <= LIST_IN_FULL_CHARS) return full;
  const ordinals = universe ? ordinalsByKind(universe) : new Map<string, [string, number]>();
  const place = (key: string): [string, number] => {
    const known = ordinals.get(key);
    if (known) return known;
    const match = /^(.*?)(\d+)$/.exec(key);
    return match ? [`~${match[1]}`, Number(match[2])] : [`~${key}`, NaN];
  };
  const ranges: Array<{ first: string; last: string; count: number }> = [];
  let run: { group: string; next: number; first: string; last: string; count: number } | undefined;
  for (const key of sorted) {
    const [group, ordinal] = place(key);
    if (run && run.group === group && run.next === ordinal) {
      run.last = key;
      run.count++;
      run.next++;
      continue;
    }
    if (run) ranges.push(run);
    run = { group, next: ordinal + 1, first: key, last: key, count: 1 };
  }
  if (run) ranges.push(run);
  const written = ranges.slice(0, MAX_RANGES).map((range) => {
    if (range.count === 1) return range.first;
    if (range.count === 2) return `${range.first}, ${range.last}`;
    return `${range.first}–${range.last} (${range.count})`;
  });
  const rest = ranges.slice(MAX_RANGES).reduce((sum, range) => sum + range.count, 0);
  if (rest > 0) written.push(`and ${rest} more keys in ${ranges.length - MAX_RANGES} more ranges`);
  return written.join(', ');
}

/** Each plan key's kind and its position among the plan's keys of that kind, in key order. */
function ordinalsByKind(universe: Iterable<string>): Map<string, [string, number]> {
  const byKind = new Map<string, string[]>();
  for (const key of new Set(universe)) {
    const kind = key.split(':', 1)[0];
    const list = byKind.get(kind) ?? [];
    list.push(key);
    byKind.set(kind, list);
  }
  const out = new Map<string, [string, number]>();
  for (const [kind, list] of byKind) list.sort(byStepKey).forEach((key, i) => out.set(key, [kind, i]));
  return out;
}

/** A finding by its title or the first line of its text, cut to `max` characters. */
export function findingTitle(finding: unknown, max = 120): string {
  let text: string;
  if (typeof finding === 'string') text = finding;
  else if (finding && typeof finding === 'object') {
    const record = finding as Record<string, unknown>;
    const value = record.title ?? record.text ?? record.body;
    text = typeof value === 'string' ? value : JSON.stringify(finding);
  } else text = JSON.stringify(finding);
  const line = text.split('\n', 1)[0].trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** JSON cut to `max` characters, marked when cut. */
export function clip(value: unknown, max: number): string {
  const json = JSON.stringify(value) ?? 'null';
  return json.length > max ? `${json.slice(0, max - 1)}…` : json;
}
