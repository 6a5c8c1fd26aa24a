import type { TaskRecord, UserMessage } from '@vigil/tasks';
import { compareStreamIds, parseResumeId } from './resume-point';

/** Each terminal status: its event, and the kind of the final message that answered it (compose.ts). */
const TERMINAL: Record<string, { type: string; finalKind: UserMessage['kind'] }> = {
  completed: { type: 'task.completed', finalKind: 'completed' },
  failed: { type: 'task.failed', finalKind: 'failed' },
  cancelled: { type: 'task.cancelled', finalKind: 'control' },
};

/** One frame of the replay, before it is written. */
interface ArchivedFrame {
  id: string;
  text: string;
}

/** The stream id of the event a message answered (`<task>-ev-<stream id>`), if it answered one. */
function eventIdOf(message: UserMessage): string | undefined {
  const marker = `${message.taskId}-ev-`;
  return message.id.startsWith(marker) ? message.id.slice(marker.length) : undefined;
}

/** The next id after `id` in stream order. */
function after(id: string): string {
  const [ms, seq] = id.split('-').map(BigInt);
  return `${ms}-${seq + 1n}`;
}

function frame(id: string, type: string, payload: object): ArchivedFrame {
  return { id, text: `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ id, type, ...payload })}\n\n` };
}

/**
 * The event stream of an archived task (docs/api.md, "Archived tasks"). The archive keeps the
 * messages the user received, not the shard's events (those are trimmed long before a task's
 * retention ends), so the replay is one `message` frame per message, oldest first, then the task's
 * terminal event as its record tells it, carrying the final message as the live stream's does.
 * A message that answered an event has that event's id, an update message the millisecond it was
 * sent; ids only grow, so a Last-Event-ID resumes after it here as on a live stream.
 */
export function archivedReplay(task: TaskRecord, messages: UserMessage[], lastEventId?: string): string[] {
  const terminal = TERMINAL[task.status];
  // The final message is the last one, nothing follows it (user-message.ts, MessageDraft).
  const final = terminal && messages.at(-1)?.kind === terminal.finalKind ? messages.at(-1) : undefined;
  const frames: ArchivedFrame[] = [];
  let last = '0-0';
  for (const message of messages) {
    if (message === final) continue;
    const wanted = eventIdOf(message) ?? `${Date.parse(message.sentAt)}-0`;
    const id = compareStreamIds(wanted, last) > 0 ? wanted : after(last);
    last = id;
    frames.push(
      frame(id, 'message', { taskId: task.id, attempt: message.attempt, at: message.sentAt, message }),
    );
  }
  if (terminal) {
    const wanted = (final && eventIdOf(final)) ?? `${task.finishedAt ?? task.updatedAt}-0`;
    const id = compareStreamIds(wanted, last) > 0 ? wanted : after(last);
    const at = new Date(task.finishedAt ?? task.updatedAt).toISOString();
    frames.push(
      frame(id, terminal.type, {
        taskId: task.id,
        attempt: task.attempt,
        at,
        status: task.status,
        from: '',
        data: {},
        ...(final ? { message: final } : {}),
      }),
    );
  }
  const resumeAfter = lastEventId ? parseResumeId(lastEventId)?.events : undefined;
  return frames
    .filter((entry) => resumeAfter === undefined || compareStreamIds(entry.id, resumeAfter) > 0)
    .map((entry) => entry.text);
}
