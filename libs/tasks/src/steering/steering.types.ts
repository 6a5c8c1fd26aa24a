import type { TaskStatus } from '../task-status';

/** Most instructions one task keeps (docs/api.md, "Steering"): the model reads every one of them. */
export const MAX_STEER_INSTRUCTIONS = 50;
/** Most characters of one instruction. */
export const MAX_STEER_TEXT = 2000;
/** An instruction id, as a client may send it (Idempotency-Key is turned into one). */
export const STEER_ID_PATTERN = /^[A-Za-z0-9:_-]{1,80}$/;

/** One instruction given to a task while it ran, as steer-task.lua recorded it. */
export interface SteerInstruction {
  id: string;
  text: string;
  /** When it was given (ms). */
  at: number;
  /** How many steps the action log held when it was given: it applies from the next model call on. */
  afterStep: number;
  /** The task's status when it was given: paused or waiting, it applies when the task resumes. */
  status: TaskStatus;
  /** The attempt that was current. */
  attempt: number;
}

/** Reads a stored entry; an entry that is not an instruction is an error, never skipped. */
export function readInstruction(raw: string): SteerInstruction {
  const value = JSON.parse(raw) as Partial<SteerInstruction>;
  if (typeof value.id !== 'string' || typeof value.text !== 'string')
    throw new Error(`steering entry is not an instruction: ${raw.slice(0, 120)}`);
  return {
    id: value.id,
    text: value.text,
    at: Number(value.at ?? 0),
    afterStep: Number(value.afterStep ?? 0),
    status: value.status as TaskStatus,
    attempt: Number(value.attempt ?? 0),
  };
}
