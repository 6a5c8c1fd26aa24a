import type { TaskRecord } from '@vigil/tasks';
import type { UserMessage } from '../messages/user-message';

/** One delivery of one message over one external channel, as kept in the outbox. */
export interface OutboxEntry {
  channel: string;
  target: string;
  message: UserMessage;
}

/**
 * An external delivery channel (a driver). The message log is the channel every message takes
 * and is written inside the append/claim scripts themselves, because it is also where a message is
 * deduplicated; every other channel sits behind this interface and is fed from the outbox.
 */
export interface DeliveryChannel {
  readonly name: string;
  /** Where this task's messages go on this channel, or null when the channel does not carry them. */
  targetFor(task: TaskRecord): string | null;
  /** Hands the message over for delivery. Must be idempotent per message id: it may be called twice. */
  deliver(entry: OutboxEntry): Promise<void>;
}
