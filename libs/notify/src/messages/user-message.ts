import type { MessageKind, UserMessage } from '@vigil/tasks';

export type { MessageKind, UserMessage } from '@vigil/tasks';
export { MESSAGE_KINDS } from '@vigil/tasks';

/** A message not yet bound to an id and time: what the wording functions produce. */
export interface MessageDraft {
  kind: MessageKind;
  text: string;
  /** The answer to a terminal event: one per task, and nothing follows it. */
  final: boolean;
}

// Ids avoid ':' because BullMQ refuses it in a custom job id, and the message id is the job id.
export function eventMessageId(taskId: string, streamId: string): string {
  return `${taskId}-ev-${streamId}`;
}

export function updateMessageId(taskId: string, slot: number): string {
  return `${taskId}-up-${slot}`;
}

export function toUserMessage(
  id: string,
  taskId: string,
  attempt: number,
  draft: MessageDraft,
  now: number,
): UserMessage {
  return { id, taskId, kind: draft.kind, text: draft.text, sentAt: new Date(now).toISOString(), attempt };
}
