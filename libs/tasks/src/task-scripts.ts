import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptRunner } from '@vigil/redis';
import {
  IllegalTransitionError,
  StaleAttemptError,
  TaskNotActiveError,
  TaskNotFoundError,
} from './task-errors';
import type { TaskStatus } from './task-status';

/** Return codes shared by the task scripts (see the header of each `.lua` file). */
export enum TaskScriptCode {
  Applied = 0,
  NotFound = -1,
  NotAllowed = -2,
  StaleAttempt = -3,
  StatusMismatch = -4,
  IdempotencyConflict = -5,
  NotActive = -6,
  Created = 1,
  Existing = 2,
}

/**
 * The typed error a refused call of a fenced script means, one mapping for every script that
 * answers `{code, status, attempt, …}` (transition, heartbeat, record-step, journal-intent).
 */
export function scriptRefusal(
  code: number,
  taskId: string,
  reply: { status: TaskStatus; storedAttempt: number; writerAttempt?: number; to?: TaskStatus },
): Error {
  switch (code) {
    case TaskScriptCode.NotFound:
      return new TaskNotFoundError(taskId);
    case TaskScriptCode.StaleAttempt:
      return new StaleAttemptError(taskId, reply.writerAttempt ?? 0, reply.storedAttempt);
    case TaskScriptCode.StatusMismatch:
    case TaskScriptCode.NotAllowed:
      return new IllegalTransitionError(taskId, reply.status, reply.to ?? reply.status);
    case TaskScriptCode.NotActive:
      return new TaskNotActiveError(taskId, reply.status);
    default:
      return new Error(`task script returned unknown code ${code}`);
  }
}

export function loadTaskScripts(redis: Redis): ScriptRunner {
  return new ScriptRunner(redis, join(__dirname, 'lua'), [
    { name: 'create-task', numberOfKeys: 7 },
    { name: 'transition-task', numberOfKeys: 16 },
    { name: 'heartbeat-task', numberOfKeys: 3 },
  ]);
}
