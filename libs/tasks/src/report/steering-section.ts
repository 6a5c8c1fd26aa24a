import type { SteerInstruction } from '../steering/steering.types';
import { clip, iso, table } from './markdown';

/** The most characters of one instruction the report quotes (the API keeps it whole). */
const INSTRUCTION_CHARS = 500;

/**
 * "Instructions given while it ran" (docs/missions.md, "The task report"): each instruction a
 * person gave the running task (docs/api.md, "Steering"), when, after which step, and in what
 * state it found the task; null when it was given none.
 */
export function steeringSection(instructions: readonly SteerInstruction[] | undefined): string | null {
  if (!instructions?.length) return null;
  const rows = instructions.map((given) => [
    iso(given.at),
    String(given.afterStep),
    given.status === 'paused' || given.status === 'waiting_on_human'
      ? `${given.status.replace(/_/g, ' ')} (applied on resume)`
      : given.status.replace(/_/g, ' '),
    clip(given.text, INSTRUCTION_CHARS),
  ]);
  return table(['given at', 'after step', 'task was', 'instruction'], rows);
}
