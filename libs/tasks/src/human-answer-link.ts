import { timingSafeEqual } from 'node:crypto';
import type { TaskRecord } from './task.types';

/**
 * The path of a question's answer page: the task id, so the page finds the record on its shard
 * without an index, and the question's secret, so only the person the link was sent to can answer.
 */
export function humanAnswerPath(task: Pick<TaskRecord, 'id' | 'humanToken'>): string | null {
  return task.humanToken ? `/h/${task.id}.${task.humanToken}` : null;
}

/** Splits an answer link's token into the task id and the secret; null when it has no such shape. */
export function parseHumanAnswerToken(token: string): { taskId: string; secret: string } | null {
  const match = /^(tsk_[A-Za-z0-9_-]{8,80})\.([A-Za-z0-9_-]{16,64})$/.exec(token);
  return match ? { taskId: match[1], secret: match[2] } : null;
}

/** Whether `secret` is the task's current question's secret (compared in constant time). */
export function isHumanAnswerSecret(task: Pick<TaskRecord, 'humanToken'>, secret: string): boolean {
  if (!task.humanToken || task.humanToken.length !== secret.length) return false;
  return timingSafeEqual(Buffer.from(task.humanToken), Buffer.from(secret));
}
