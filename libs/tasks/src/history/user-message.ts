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
