import type { TaskEvent } from '@vigil/events';
import type { UserMessage } from '../messages/user-message';

/** A progress update carries the message it announced (claim-update.lua); the frame shows it once. */
function splitMessage(event: TaskEvent): { data: object; carried?: UserMessage } {
  if (event.type !== 'task.progress' || !('message' in event.data)) return { data: event.data };
  const { message: carried, ...data } = event.data;
  return { data, carried };
}

/** Stream ids as Redis writes them (`<ms>-<seq>`): the only thing accepted as a Last-Event-ID. */
export function isStreamId(value: string): boolean {
  return /^\d{1,20}-\d{1,20}$/.test(value);
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

/** A comment line: ignored by EventSource, but keeps proxies from closing an idle stream. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';
