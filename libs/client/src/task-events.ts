import type { UserMessage } from './client-types';

/**
 * One event of `GET /v1/tasks/:id/events` (docs/cli.md, "The typed client"): the SSE `data` of a frame,
 * parsed. `id` is the stream id a client resumes from (`Last-Event-ID`).
 */
export interface TaskEventFrame {
  id: string;
  /** `task.progress`, `task.completed`, … and, live only, `model.delta` and `model.call_abandoned`. */
  type: string;
  taskId: string;
  attempt: number;
  /** ISO 8601. */
  at: string;
  /** The task's status after the event. */
  status: string;
  /** The status before it. */
  from: string;
  data: Record<string, unknown>;
  /** The user message the event produced, when it produced one. */
  message?: UserMessage;
}

/** The events after which the API ends a task's stream: the task will not change again. */
export const TERMINAL_EVENT_TYPES: readonly string[] = ['task.completed', 'task.failed', 'task.cancelled'];

/** The text of a `model.delta` event, wherever the frame carries it (its data, or the frame itself). */
export function modelDeltaText(frame: TaskEventFrame): string | undefined {
  if (frame.type !== 'model.delta') return undefined;
  const text = (frame.data as { text?: unknown } | undefined)?.text ?? (frame as { text?: unknown }).text;
  return typeof text === 'string' ? text : undefined;
}

/** The stream sent something that is not a task event: reconnecting would only get it again. */
export class EventStreamProtocolError extends Error {
  override readonly name = 'EventStreamProtocolError';
}

/** Parses one SSE `data` field; a frame that is not a task event is a protocol error worth naming. */
export function parseEventFrame(
  data: string,
  sseId: string | undefined,
  sseEvent: string | undefined,
): TaskEventFrame {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (error) {
    throw new EventStreamProtocolError(`the event stream sent data that is not JSON: ${data.slice(0, 120)}`, {
      cause: error,
    });
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new EventStreamProtocolError(
      `the event stream sent data that is not an event object: ${data.slice(0, 120)}`,
    );
  const frame = parsed as Partial<TaskEventFrame>;
  return {
    ...frame,
    id: frame.id ?? sseId ?? '',
    type: frame.type ?? sseEvent ?? 'message',
    data: frame.data && typeof frame.data === 'object' ? frame.data : {},
  } as TaskEventFrame;
}
