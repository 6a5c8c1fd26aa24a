import {
  IllegalTransitionError,
  StaleAttemptError,
  TaskNotActiveError,
  TaskNotFoundError,
} from '../task-errors';
import type { TaskStatus } from '../task-status';

/**
 * What the task scripts answer first (lua/includes/codes.lua, `CODE`; a unit test keeps the two
 * in step). Every refusal of a fenced write maps to one typed error through `scriptRefusal`.
 */
export enum ScriptCode {
  Applied = 0,
  Created = 1,
  Existing = 2,
  NotFound = -1,
  NotAllowed = -2,
  StaleAttempt = -3,
  StatusMismatch = -4,
  IdempotencyConflict = -5,
  NotActive = -6,
  InvalidOperation = -12,
}

/** The user-message scripts' outcomes (codes.lua, `MESSAGE`). */
export enum MessageScriptCode {
  NotDue = 0,
  Appended = 1,
  Duplicate = 2,
  NotFound = -1,
  Finished = -7,
  SlotMoved = -8,
  Parked = -9,
  AfterFinal = -10,
  OtherFinal = -11,
}

/** load-slice's answer about the caller's held context (codes.lua, `CONTEXT`). */
export enum ContextReply {
  Held = 0,
  Included = 1,
}

/**
 * The typed error a refused call of a fenced script means, one mapping for every script that
 * answers `{code, status, attempt, …}` (transition, heartbeat, record-step, journal-intent,
 * reconcile-journal, touch-index).
 */
export function scriptRefusal(
  code: number,
  taskId: string,
  reply: { status: TaskStatus; storedAttempt: number; writerAttempt?: number; to?: TaskStatus },
): Error {
  switch (code) {
    case ScriptCode.NotFound:
      return new TaskNotFoundError(taskId);
    case ScriptCode.StaleAttempt:
      return new StaleAttemptError(taskId, reply.writerAttempt ?? 0, reply.storedAttempt);
    case ScriptCode.StatusMismatch:
    case ScriptCode.NotAllowed:
      return new IllegalTransitionError(taskId, reply.status, reply.to ?? reply.status);
    case ScriptCode.NotActive:
      return new TaskNotActiveError(taskId, reply.status);
    case ScriptCode.InvalidOperation:
      // A lifecycle bug, never a race: the operation does not fit its target or reason.
      return new Error(`task ${taskId}: the operation does not fit the move to ${reply.to ?? '?'}`);
    default:
      return new Error(`task script returned unknown code ${code}`);
  }
}

/** claim-conversation-message's answer (codes.lua, `CONVERSATION`). */
export enum ConversationClaimCode {
  Claimed = 0,
  Duplicate = 1,
  Pending = 2,
}

/** The schedule scripts' outcomes (codes.lua, `SCHEDULE`; docs/schedules.md). */
export enum ScheduleScriptCode {
  Applied = 0,
  Claimed = 1,
  Duplicate = 2,
  NotFound = -1,
  Limit = -13,
  Paused = -14,
  Busy = -15,
}
