import type { Redis } from 'ioredis';
import type { RedisKeys } from '@vigil/redis';
import { ChildKeys } from '../children/child-keys';
import { contextOfStored } from '../history/task-context.store';
import { reportOfContext } from '../report/task-report.reader';
import { decodeTask } from '../task-codec';
import type { TaskArchivePayload } from './task-archive.types';

type Replies = [Error | null, unknown][] | null;

function replyAt(replies: Replies, index: number): unknown {
  const [error, result] = replies?.[index] ?? [new Error('no reply'), null];
  if (error) throw error;
  return result;
}

/**
 * Everything Redis holds about one task, as stored, in ONE round trip (a pipeline: every key of a
 * task carries its shard's hash tag, so this is one slot on a cluster), with its report built by
 * the same code `GET /v1/tasks/:id/report` runs: the archive's payload (docs/api.md, "Archived
 * tasks"). Null when the task has no record. `expiredAt` is when its retention ran out.
 */
export async function readTaskForArchive(
  redis: Redis,
  keys: RedisKeys,
  taskId: string,
  expiredAt: number,
  /** PUBLIC_BASE_URL, for the report's artifact links. */
  publicBaseUrl?: string,
): Promise<TaskArchivePayload | null> {
  const replies = await redis
    .pipeline()
    .hgetall(keys.task(taskId))
    .lrange(keys.actions(taskId), 0, -1)
    .lrange(keys.findings(taskId), 0, -1)
    .lrange(keys.messages(taskId), 0, -1)
    .hgetall(keys.outputs(taskId))
    .hgetall(keys.journal(taskId))
    .smembers(keys.doneSteps(taskId))
    .lrange(new ChildKeys(keys).all(taskId), 0, -1)
    .lrange(keys.artifacts(taskId), 0, -1)
    .lrange(keys.steering(taskId), 0, -1)
    .exec();
  const record = replyAt(replies, 0) as Record<string, string>;
  const task = decodeTask(record);
  if (!task) return null;
  const stored = {
    actions: replyAt(replies, 1) as string[],
    findings: replyAt(replies, 2) as string[],
    outputs: replyAt(replies, 4) as Record<string, string>,
    journal: replyAt(replies, 5) as Record<string, string>,
    // A set has no order; sorted, the same task always archives to the same bytes.
    doneSteps: [...(replyAt(replies, 6) as string[])].sort(),
    steering: replyAt(replies, 9) as string[],
  };
  return {
    taskId,
    tenantId: task.tenantId,
    expiredAt,
    record,
    actions: stored.actions,
    findings: stored.findings,
    messages: replyAt(replies, 3) as string[],
    outputs: stored.outputs,
    journal: stored.journal,
    doneSteps: stored.doneSteps,
    children: replyAt(replies, 7) as string[],
    report: reportOfContext(task, contextOfStored(stored), publicBaseUrl),
    artifacts: replyAt(replies, 8) as string[],
    ...(stored.steering.length ? { steering: stored.steering } : {}),
  };
}
