import type { TaskEvent } from '@vigil/events';
import type { LiveEvent } from '@vigil/tasks';
import type { UserMessage } from '../messages/user-message';

/** A progress update carries the message it announced (claim-update.lua); the frame shows it once. */
function splitMessage(event: TaskEvent): { data: object; carried?: UserMessage } {
  if (event.type !== 'task.progress' || !('message' in event.data)) return { data: event.data };
  const { message: carried, ...data } = event.data;
  return { data, carried };
}

/** One Server-Sent Event: `id` is the stream id (what a client resumes from), `event` the type. */
export function sseFrame(event: TaskEvent, message: UserMessage | null): string {
  const { data, carried } = splitMessage(event);
  const payload = {
    id: event.id,
    type: event.type,
    taskId: event.taskId,
    attempt: event.attempt,
    at: new Date(event.at).toISOString(),
    status: event.status,
    from: event.from,
    data,
    ...(message ? { message } : carried ? { message: carried } : {}),
  };
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/**
 * A live model event (docs/api.md, "Live model output"): `id` resumes both the durable events and
 * the live output (resume-point.ts), `data` is `{attempt, callId, text, offset, final?}` for a
 * `model.delta` and `{attempt, callId, reason}` for a `model.call_abandoned`.
 */
export function liveFrame(id: string, taskId: string, event: LiveEvent, at: number): string {
  const { type, ...data } = event;
  const payload = { id, type, taskId, attempt: event.attempt, at: new Date(at).toISOString(), data };
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** A comment line: ignored by EventSource, but keeps proxies from closing an idle stream. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';
