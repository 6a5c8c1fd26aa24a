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
] as const;

export type TaskEventType = (typeof TASK_EVENT_TYPES)[number];

export interface TaskEvent {
  /** The stream entry id: unique, ordered, and the SSE `id`. */
  id: string;
  shard: number;
  type: TaskEventType;
  taskId: string;
  tenantId: string;
  attempt: number;
  at: number;
  status: string;
  from: string;
  data: Record<string, unknown>;
}

export function parseTaskEvent(shard: number, id: string, flat: string[]): TaskEvent {
  const fields: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
  let data: Record<string, unknown> = {};
  try {
    data = fields.data ? (JSON.parse(fields.data) as Record<string, unknown>) : {};
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
  };
}

/** Field list for XADD from TypeScript (scripts write the same layout). */
export function taskEventFields(event: Omit<TaskEvent, 'id' | 'shard'>): string[] {
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
