/** Check details are fed to the next attempt as its retry context: name things, but stay short. */

const MAX_NAMES = 12;
const MAX_DETAIL = 1500;

/** `a, b, c` or `a, b, … and 7 more`. */
export function nameList(names: string[], max = MAX_NAMES): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')}, … and ${names.length - max} more`;
}

/** `missing ad sets: Ad set 10, Ad set 11`, or null when there is nothing to say. */
export function section(title: string, names: string[]): string | null {
  return names.length === 0 ? null : `${title}: ${nameList(names)}`;
}

export const copies = (label: string, count: number): string => `${label} (${count} copies)`;

/** The non-empty sections joined, or `fallback` when all are empty; capped in length. */
export function joinDetail(sections: (string | null)[], fallback: string): string {
  const text = sections.filter((s): s is string => s !== null).join('; ') || fallback;
  return text.length <= MAX_DETAIL ? text : `${text.slice(0, MAX_DETAIL - 1)}…`;
}
