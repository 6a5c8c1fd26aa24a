import { UnrecoverableError } from 'bullmq';
import type { WebhookConfig } from '@vigil/config';
import { assertWebhookTarget, WebhookTargetError } from './webhook-target';
import type { WebhookJob } from './webhook-queues';
import { MESSAGE_ID_HEADER, SIGNATURE_HEADER, signWebhook } from './webhook-signature';

/** A receiver answer that retrying cannot fix. */
const PERMANENT_STATUSES = new Set([410]);

export class WebhookDeliveryError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'WebhookDeliveryError';
  }
}

/**
 * One delivery attempt: the message as JSON, signed over `<timestamp>.<body>` (a fresh timestamp per
 * attempt, the same body and message id on every attempt so the receiver can deduplicate).
 */
export class WebhookSender {
  constructor(private readonly config: WebhookConfig) {}

  async send(job: WebhookJob, attempt: number, now = Date.now()): Promise<number> {
    try {
      // Checked again at delivery: DNS may point elsewhere now than when the task was created.
      await assertWebhookTarget(job.url, this.config.webhookAllowPrivate);
    } catch (error) {
      if (error instanceof WebhookTargetError) throw new UnrecoverableError(error.message);
      throw error;
    }
    const body = JSON.stringify(job.message);
    let response: Response;
    try {
      response = await fetch(job.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'vigil-notifier',
          [SIGNATURE_HEADER]: signWebhook(body, this.config.webhookSecret, Math.floor(now / 1000)),
          [MESSAGE_ID_HEADER]: job.message.id,
          'Vigil-Delivery-Attempt': String(attempt),
        },
        body,
        // A redirect could lead past the SSRF check, so it counts as a failed delivery.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.config.webhookTimeoutMs),
      });
    } catch (error) {
      throw new WebhookDeliveryError(`POST ${job.url} failed: ${String(error)}`);
    }
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return response.status;
    const problem = `receiver answered ${response.status}`;
    if (PERMANENT_STATUSES.has(response.status)) throw new UnrecoverableError(problem);
    throw new WebhookDeliveryError(problem, response.status);
  }
}
