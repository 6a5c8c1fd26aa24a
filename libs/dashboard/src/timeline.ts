import type { TaskEvent } from '@vigil/events';
import type { TaskRecord } from '@vigil/tasks';

/** Events that are steps of work, not changes of state: the action log shows those. */
const NOT_TRANSITIONS = new Set(['task.progress', 'task.message', 'task.finding']);

/** Event data worth a line on the timeline: why it happened and who asked. */
const REASON_FIELDS = ['reason', 'detail', 'by', 'model', 'provider', 'statusReason', 'question'];

export interface TimelineEntry {
  at: number;
  /** `transition` from the event stream; `retry` from the record's retryHistory. */
  source: 'transition' | 'retry';
  what: string;
  from: string | null;
  to: string | null;
  attempt: number;
  reason: string | null;
}

/** Whichever of REASON_FIELDS the event's data has, whatever its type. */
function reasonOf(data: TaskEvent['data']): string | null {
  const fields = new Map<string, unknown>(Object.entries(data));
  const parts = REASON_FIELDS.flatMap((field) => {
    const value = fields.get(field);
    if (value === undefined || value === null) return [];
    return [`${field}: ${typeof value === 'string' ? value : JSON.stringify(value)}`];
  });
  return parts.length ? parts.join(' · ') : null;
}

/**
 * A task's history as an operator reads it: each change of state from its events, and each failed
 * attempt from `retryHistory` (which survives the event stream's cap), oldest first.
 */
export function buildTimeline(task: TaskRecord, events: TaskEvent[]): TimelineEntry[] {
  const entries: TimelineEntry[] = events
    .filter((event) => event.taskId === task.id && !NOT_TRANSITIONS.has(event.type))
    .map((event) => ({
      at: event.at,
      source: 'transition',
      what: event.type,
      from: event.from || null,
      to: event.status || null,
      attempt: event.attempt,
      reason: reasonOf(event.data),
    }));
  for (const retry of task.retryHistory)
    entries.push({
      at: retry.at,
      source: 'retry',
      what: `attempt ${retry.attempt} failed`,
      from: null,
      to: null,
      attempt: retry.attempt,
      reason: [
        retry.reason,
        retry.detail,
        `${retry.provider ?? 'unknown provider'} / ${retry.model}`,
        `$${retry.costUsd.toFixed(4)}`,
      ]
        .filter(Boolean)
        .join(' · '),
    });
  return entries.sort((a, b) => a.at - b.at || (a.source === b.source ? 0 : a.source === 'retry' ? -1 : 1));
}
