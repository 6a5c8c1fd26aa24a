import {
  IllegalTransitionError,
  PERSON_MOVES_FROM,
  ReadableTasks,
  type TaskRecord,
  type TaskStatus,
} from '@vigil/tasks';

export type Control = 'stop' | 'pause' | 'resume' | 'input';

/** The states each control acts on; any other answers 409 in words (docs/api.md, "Controls"). */
export const CONTROL_FROM: Record<Control, readonly TaskStatus[]> = PERSON_MOVES_FROM;

/** "the task is …" */
const STATE_WORDS: Record<TaskStatus, string> = {
  queued: 'queued',
  running: 'running',
  waiting_on_tool: 'waiting on a tool',
  waiting_on_human: "waiting for a person's answer",
  paused: 'paused',
  verifying: 'verifying its result',
  retrying: 'retrying',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** "only … tasks" */
const ADJECTIVES: Record<TaskStatus, string> = {
  ...STATE_WORDS,
  waiting_on_tool: 'waiting',
  waiting_on_human: 'waiting',
};

const DONE_TO: Record<'pause' | 'resume', string> = { pause: 'paused', resume: 'resumed' };

function orList(words: string[]): string {
  const unique = [...new Set(words)];
  return unique.length <= 1 ? (unique[0] ?? '') : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`;
}

/** The refusal in a user's words: "the task is completed; only paused tasks can be resumed". */
export function controlRefusal(control: Control, current: TaskStatus): string {
  const state = `the task is ${STATE_WORDS[current]}`;
  if (control === 'stop') return `${state}; only a task that has not finished can be stopped`;
  if (control === 'pause' && current === 'paused') return 'the task is already paused';
  if (control === 'input') return `${state}; only a task waiting for a person's answer takes input`;
  const allowed = orList(CONTROL_FROM[control].map((status) => ADJECTIVES[status]));
  return `${state}; only ${allowed} tasks can be ${DONE_TO[control]}`;
}

/** A control the task's current status does not allow: a 409 with `currentStatus`, worded for a user. */
export class ControlNotAllowedError extends IllegalTransitionError {
  constructor(
    readonly control: Control,
    taskId: string,
    currentStatus: TaskStatus,
    targetStatus: TaskStatus,
  ) {
    super(taskId, currentStatus, targetStatus);
    this.message = controlRefusal(control, currentStatus);
  }
}

/** Runs a control's transition; a refusal by the transition table becomes ControlNotAllowedError. */
export async function applyControl<T>(
  control: Control,
  taskId: string,
  transition: () => Promise<T>,
): Promise<T> {
  try {
    return await transition();
  } catch (error) {
    if (error instanceof IllegalTransitionError && !(error instanceof ControlNotAllowedError))
      throw new ControlNotAllowedError(control, taskId, error.currentStatus, error.targetStatus);
    throw error;
  }
}

/** Where each control would move a task: the target of the 409 when the task cannot move. */
const CONTROL_TARGET: Record<Control, TaskStatus> = {
  stop: 'cancelled',
  pause: 'paused',
  resume: 'queued',
  input: 'queued',
};

/**
 * The live task a control acts on. An archived task is finished and read-only: a control on it is
 * the same 409 with its status as on the finished task before it was archived (docs/api.md,
 * "Archived tasks").
 */
export async function taskToControl(
  reads: ReadableTasks,
  control: Control,
  tenantId: string,
  taskId: string,
): Promise<TaskRecord> {
  const { task, archive } = await reads.find(tenantId, taskId);
  if (archive) throw new ControlNotAllowedError(control, taskId, task.status, CONTROL_TARGET[control]);
  return task;
}
