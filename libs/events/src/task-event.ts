import type { TaskEventDataMap } from '@vigil/tasks';

/** The events every part of Vigil publishes and consumes, one per meaningful change of a task. */
export const TASK_EVENT_TYPES = [
  'task.created',
  'task.started',
  'task.slice_started',
  'task.finding',
  'task.progress',
  'task.message',
  'task.waiting_on_human',
  'task.verifying',
  'task.recovered',
  'task.completed',
  'task.failed',
  'task.cancelled',
  'task.paused',
  'task.resumed',
  'task.steered',
] as const;

export type TaskEventType = (typeof TASK_EVENT_TYPES)[number];

/** The catalog of event data (libs/tasks task-event-data.ts, its writers) names exactly these types. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never] ? true : never;
const CATALOG_MATCHES: SameKeys<TaskEventDataMap, Record<TaskEventType, unknown>> = true;
void CATALOG_MATCHES;

/** What every event carries beside its type and data (includes/event.lua writes them). */
interface TaskEventEnvelope {
  /** The stream entry id: unique, ordered, and the SSE `id`. */
  id: string;
  shard: number;
  taskId: string;
  tenantId: string;
  attempt: number;
  at: number;
  status: string;
  from: string;
}

/** One task event: its `data` typed by its `type`. */
export type TaskEvent = {
  [T in TaskEventType]: TaskEventEnvelope & { type: T; data: TaskEventDataMap[T] };
}[TaskEventType];

/** The event of one type. */
export type TaskEventOf<T extends TaskEventType> = Extract<TaskEvent, { type: T }>;

/**
 * Decodes a stream entry. The data is trusted as its type's (only the task scripts write the
 * stream); data that is not JSON is kept under `unparsed`.
 */
export function parseTaskEvent(shard: number, id: string, flat: string[]): TaskEvent {
  const fields: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
  let data: unknown = {};
  try {
    data = fields.data ? JSON.parse(fields.data) : {};
  } catch {
    data = { unparsed: fields.data };
  }
  return {
    id,
    shard,
    type: fields.type as TaskEventType,
    taskId: fields.taskId,
    tenantId: fields.tenantId ?? '',
    attempt: Number(fields.attempt ?? 0),
    at: Number(fields.at ?? 0),
    status: fields.status ?? '',
    from: fields.from ?? '',
    data,
  } as TaskEvent;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Field list for XADD from TypeScript (scripts write the same layout). */
export function taskEventFields(event: DistributiveOmit<TaskEvent, 'id' | 'shard'>): string[] {
  return [
    'type',
    event.type,
    'taskId',
    event.taskId,
    'tenantId',
    event.tenantId,
    'attempt',
    String(event.attempt),
    'at',
    String(event.at),
    'status',
    event.status,
    'from',
    event.from,
    'data',
    JSON.stringify(event.data),
  ];
}
