import type { TaskEvent } from '@vigil/events';
import type { ArtifactEntry, TaskRecord } from '@vigil/tasks';

/** Events that are steps of work, not changes of state: the action log shows those. */
const NOT_TRANSITIONS = new Set(['task.progress', 'task.message', 'task.finding']);

/** Event data worth a line on the timeline: why it happened and who asked (`text`: a steering instruction). */
const REASON_FIELDS = ['reason', 'detail', 'by', 'model', 'provider', 'statusReason', 'question', 'text'];

export interface TimelineEntry {
  at: number;
  /**
   * `transition` from the event stream; `retry` from the record's retryHistory; `artifact` from the
   * task's artifact list (a screenshot the agent took: the page shows its thumbnail).
   */
  source: 'transition' | 'retry' | 'artifact';
  what: string;
  from: string | null;
  to: string | null;
  attempt: number;
  reason: string | null;
  artifact?: ArtifactEntry;
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
 * A task's history as an operator reads it: each change of state from its events, each failed
 * attempt from `retryHistory` (which survives the event stream's cap), and each artifact the task
 * kept (its screenshots, screen by screen), oldest first.
 */
export function buildTimeline(
  task: TaskRecord,
  events: TaskEvent[],
  artifacts: readonly ArtifactEntry[] = [],
): TimelineEntry[] {
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
  for (const artifact of artifacts)
    entries.push({
      at: Date.parse(artifact.createdAt) || 0,
      source: 'artifact',
      what: `${artifact.tool} #${artifact.step}`,
      from: null,
      to: null,
      attempt: 0,
      reason: null,
      artifact,
    });
  const rank = { retry: 0, transition: 1, artifact: 2 } as const;
  return entries.sort((a, b) => a.at - b.at || rank[a.source] - rank[b.source]);
}
