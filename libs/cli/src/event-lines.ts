import type { TaskEventFrame } from '@vigil/client';
import { oneLine } from './table';
import type { Line } from './task-format';

type Data = Record<string, unknown>;
const text = (value: unknown, max = 200): string => oneLine(typeof value === 'string' ? value : '', max);

/** What an event says that the progress line does not (none for a plain step or hand-off). */
function eventLine(frame: TaskEventFrame): Line | undefined {
  const data: Data = frame.data ?? {};
  switch (frame.type) {
    case 'task.started':
      return { text: `started (attempt ${frame.attempt})`, tone: 'dim' };
    case 'task.progress':
      if (typeof data.turnFailed === 'string')
        return {
          text: `attempt ${frame.attempt} failed: ${data.turnFailed}${data.detail ? ` (${text(data.detail, 160)})` : ''}`,
          tone: 'warn',
        };
      if (data.waitingOn === 'children') return { text: 'waiting for its child tasks' };
      if (data.children === 'ended') return { text: 'its child tasks ended' };
      return undefined;
    case 'task.finding':
      return { text: `finding: ${text(data.title)}` };
    case 'task.waiting_on_human':
      return { text: `waiting for a person: ${text(data.question, 300)}`, tone: 'warn' };
    case 'task.verifying':
      return { text: `verifying the claim${data.claim ? `: ${text(data.claim, 160)}` : ''}` };
    case 'task.recovered':
      return {
        text: `recovered: retry ${String(data.retryNumber ?? '?')} after ${String(data.reason ?? 'a failure')}, ${String(data.completedUnits ?? 0)} units done`,
        tone: 'warn',
      };
    case 'task.paused':
      return {
        text: `paused by ${String(data.by ?? 'someone')}${data.reason ? ` (${String(data.reason)})` : ''}`,
        tone: 'warn',
      };
    case 'task.resumed':
      return { text: data.input ? 'answered: resuming' : 'resumed' };
    case 'task.steered':
      return { text: `steered: ${text(data.text, 300)}` };
    case 'model.call_abandoned':
      return { text: `model call abandoned${data.reason ? ` (${String(data.reason)})` : ''}`, tone: 'dim' };
    default:
      return undefined;
  }
}

/**
 * The lines `tasks watch` prints for an event (docs/cli.md, "Watching a task"): what happened, then
 * the message the user received about it, if any. The agent's own words come as that message; an
 * agent message with none attached (no Notifier running) is printed from the event itself.
 */
export function eventLines(frame: TaskEventFrame): Line[] {
  const lines: Line[] = [];
  const line = eventLine(frame);
  if (line) lines.push(line);
  if (frame.message?.text)
    lines.push({ text: `message (${frame.message.kind ?? 'update'}): ${oneLine(frame.message.text, 400)}` });
  else if (frame.type === 'task.message')
    lines.push({ text: `message (agent): ${text(frame.data?.text, 400)}` });
  return lines;
}

/** Completed and total units an event reports (steps send numbers, heartbeats strings). */
export function progressOf(frame: TaskEventFrame): { completed?: number; total?: number } {
  const data: Data = frame.data ?? {};
  const number = (value: unknown) => (value === undefined || value === '' ? undefined : Number(value));
  const completed = number(data.completedUnits);
  const total = number(data.totalUnits);
  return {
    completed: Number.isFinite(completed) ? completed : undefined,
    total: Number.isFinite(total) ? total : undefined,
  };
}
