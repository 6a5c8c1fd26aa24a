import type { TaskEvent, TaskEventType } from '@vigil/events';
import type { TaskRecord } from '@vigil/tasks';
import {
  agentText,
  humanInputText,
  pausedText,
  recoveryText,
  resumedText,
  steeredText,
  stoppedText,
} from './event-texts';
import { completedText, failedText } from './final-texts';
import type { MessageDraft } from './user-message';

/** Whether the message of this event carries the task's report (a mission's completion). */
export function needsReport(type: TaskEventType, task: Pick<TaskRecord, 'kind'>): boolean {
  return type === 'task.completed' && task.kind === 'mission';
}

/** Event types that may produce a user message (the live stream waits briefly for theirs). */
export function producesMessage(type: TaskEventType): boolean {
  switch (type) {
    case 'task.recovered':
    case 'task.message':
    case 'task.waiting_on_human':
    case 'task.paused':
    case 'task.resumed':
    case 'task.steered':
    case 'task.cancelled':
    case 'task.completed':
    case 'task.failed':
      return true;
    case 'task.created':
    case 'task.started':
    case 'task.slice_started':
    case 'task.finding':
    case 'task.progress':
    case 'task.verifying':
      // Progress reaches the user by time (the update cadence), not per event.
      return false;
  }
}

/** What a message may carry beside the record: a mission's report, for its completed message. */
export interface ComposeExtras {
  report?: string;
  /** The absolute link of the answer page of the question a task waits on. */
  answerUrl?: string;
}

/** The message one event means for the user, worded from the task record and the event's data. */
export function composeForEvent(
  event: TaskEvent,
  task: TaskRecord,
  extras: ComposeExtras = {},
): MessageDraft | null {
  switch (event.type) {
    case 'task.recovered':
      return { kind: 'recovery', text: recoveryText(task, event.data), final: false };
    case 'task.message': {
      const text = agentText(event.data);
      return text ? { kind: 'agent', text, final: false } : null;
    }
    case 'task.waiting_on_human':
      return { kind: 'human_input', text: humanInputText(task, event.data, extras.answerUrl), final: false };
    case 'task.paused':
      return { kind: 'control', text: pausedText(task, event.data), final: false };
    case 'task.resumed':
      return { kind: 'control', text: resumedText(task, event.data), final: false };
    case 'task.steered':
      return { kind: 'control', text: steeredText(task, event.data, event.status), final: false };
    case 'task.cancelled':
      return { kind: 'control', text: stoppedText(task, event.data), final: true };
    case 'task.completed':
      return { kind: 'completed', text: completedText(task, extras.report), final: true };
    case 'task.failed':
      return { kind: 'failed', text: failedText(task), final: true };
    case 'task.created':
    case 'task.started':
    case 'task.slice_started':
    case 'task.finding':
    case 'task.progress':
    case 'task.verifying':
      return null;
  }
}
