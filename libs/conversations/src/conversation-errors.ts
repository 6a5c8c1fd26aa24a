import { DomainError } from '@vigil/tasks';

/** Conversation ids are kept verbatim: anything outside `[A-Za-z0-9:_-]{1,80}` is refused, never rewritten. */
export class InvalidConversationIdError extends DomainError {
  readonly kind = 'invalid';

  constructor(id: string) {
    super(
      `conversation id must be 1 to 80 characters of letters, digits, ":", "_" or "-", got ${JSON.stringify(id.slice(0, 100))}`,
    );
  }
}

/** The same message id is being processed by another request right now. */
export class MessageInProgressError extends DomainError {
  readonly kind = 'conflict';

  constructor(messageId: string) {
    super(`message ${messageId} is still being processed; send it again in a moment for its reply`);
  }
}

const CONVERSATION_ID = /^[A-Za-z0-9:_-]{1,80}$/;

export function assertConversationId(id: string): void {
  if (!CONVERSATION_ID.test(id)) throw new InvalidConversationIdError(id);
}

/** Conversations whose id starts `test:` never deliver outside the message log. */
export function isTestConversation(id: string): boolean {
  return id.startsWith('test:');
}
