import type { WebhookConfig } from '@vigil/config';
import type { TaskRecord } from '@vigil/tasks';
import type { DeliveryChannel, OutboxEntry } from '../delivery/delivery-channel';
import type { WebhookQueues } from './webhook-queues';

/** Webhooks: the task's `notify.webhookUrl`, else WEBHOOK_DEFAULT_URL; delivered by the queue. */
export class WebhookChannel implements DeliveryChannel {
  readonly name = 'webhook';

  constructor(
    private readonly queues: WebhookQueues,
    private readonly config: WebhookConfig,
  ) {}

  targetFor(task: TaskRecord): string | null {
    return task.notify.webhookUrl || this.config.webhookDefaultUrl || null;
  }

  async deliver(entry: OutboxEntry): Promise<void> {
    await this.queues.add({ url: entry.target, message: entry.message });
  }
}
