import { createHash } from 'node:crypto';

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * The logical step of a `start_subtask` call: its arguments, hashed. The same request in a retried
 * attempt is the same step, so it makes the same child (docs/missions.md, "Child missions"), and a
 * scripted plan knows the call is done once the step is.
 */
export function subtaskStepKey(args: Record<string, unknown>): string {
  return `subtask:${createHash('sha256').update(canonical(args)).digest('hex').slice(0, 16)}`;
}
