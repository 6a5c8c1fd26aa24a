import { Logger } from '@nestjs/common';
import type { TaskEvent } from '@vigil/events';
import { humanAnswerPath, type TaskReportReader, type TaskRepository } from '@vigil/tasks';
import type { DeliveryOutbox } from '../delivery/delivery-outbox';
import { composeForEvent, needsReport, producesMessage } from '../messages/compose';
import type { AppendOutcome, MessageLog } from '@vigil/tasks';
import { eventMessageId, toUserMessage } from '../messages/user-message';

/**
 * Turns one task event into at most one user message. Idempotent, as at-least-once delivery needs:
 * the message id is derived from the stream id, so a redelivered or claimed event finds its message
 * already in the log and sends nothing new.
 */
export class EventHandler {
  private readonly logger = new Logger(EventHandler.name);

  constructor(
    private readonly tasks: TaskRepository,
    private readonly log: MessageLog,
    private readonly outbox: DeliveryOutbox,
    /** Builds a mission's report for its completed message; without it the message has none. */
    private readonly reports?: TaskReportReader,
    /** PUBLIC_BASE_URL: answer links are absolute, so they work from a phone's mail or chat app. */
    private readonly publicBaseUrl?: string,
  ) {}

  async handle(event: TaskEvent, now = Date.now()): Promise<AppendOutcome | 'ignored'> {
    if (!producesMessage(event.type) || !event.taskId) return 'ignored';
    const task = await this.tasks.get(event.taskId);
    if (!task) return 'ignored';
    const report =
      this.reports && needsReport(event.type, task) ? await this.reports.reportOf(task) : undefined;
    const path = event.type === 'task.waiting_on_human' ? humanAnswerPath(task) : null;
    const answerUrl = path && this.publicBaseUrl ? `${this.publicBaseUrl}${path}` : undefined;
    const draft = composeForEvent(event, task, { report, answerUrl });
    if (!draft) return 'ignored';
    const message = toUserMessage(eventMessageId(task.id, event.id), task.id, event.attempt, draft, now);
    const entries = this.outbox.entriesFor(task, message);
    const outcome = await this.log.append(message, draft.final, entries, now);
    switch (outcome) {
      case 'appended':
        this.outbox.dispatchInBackground(task.id, entries);
        break;
      case 'after_final':
      case 'other_final':
        // Only a late redelivery gets here (its consumer died and the task ended meanwhile): the
        // final message already told the user how the task ended, and nothing may follow it.
        this.logger.warn(`${event.type} ${event.id} of ${task.id} arrived after the final message; not sent`);
        break;
      case 'duplicate':
      case 'missing':
        break;
    }
    return outcome;
  }
}
