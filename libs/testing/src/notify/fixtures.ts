import type { TaskEvent, TaskEventType } from '@vigil/events';
import type { TaskEventDataMap } from '@vigil/tasks';

/** An event of `type`; its data may leave out what the wording under test does not read. */
export function taskEvent<T extends TaskEventType>(
  type: T,
  data: Partial<TaskEventDataMap[T]> = {},
  id = '1700000000500-0',
): TaskEvent {
  const envelope = {
    id,
    shard: 0,
    taskId: 'tsk_fixture',
    tenantId: 'acme',
    attempt: 1,
    at: 1_700_000_000_500,
    status: 'running',
    from: 'running',
  };
  return { ...envelope, type, data } as TaskEvent;
}

/** Whatever a message says, it never shows a percentage. */
export const PERCENTAGE = /\d\s*%|percent/i;
