/** What a person is told about a task, on every channel (message log, webhooks, live streams). */
export const MESSAGE_KINDS = [
  'progress',
  'recovery',
  'agent',
  'human_input',
  'control',
  'completed',
  'failed',
] as const;

export type MessageKind = (typeof MESSAGE_KINDS)[number];

export interface UserMessage {
  /** Deterministic from its source (event or update slot): a redelivery can never mint a second one. */
  id: string;
  taskId: string;
  kind: MessageKind;
  text: string;
  /** ISO 8601. */
  sentAt: string;
  attempt: number;
}

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
