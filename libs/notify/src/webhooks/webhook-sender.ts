import { UnrecoverableError } from 'bullmq';
import type { WebhookConfig } from '@vigil/config';
import { NOOP_SPAN, VIGIL, type TraceSpan, type Tracing } from '@vigil/telemetry';
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
  constructor(
    private readonly config: WebhookConfig,
    private readonly tracing?: Tracing,
  ) {}

  /**
   * Each attempt is a span in the task's trace under the attempt the message is about, and its
   * `traceparent` goes with the POST (docs/observability.md, "Trace context going out").
   */
  async send(job: WebhookJob, attempt: number, now = Date.now()): Promise<number> {
    const span = this.span(job, attempt);
    try {
      const status = await this.deliver(job, attempt, now, span);
      span.set({ 'http.response.status_code': status });
      return status;
    } catch (error) {
      span.fail(error, error instanceof WebhookDeliveryError ? 'delivery' : undefined);
      throw error;
    } finally {
      span.end();
    }
  }

  private span(job: WebhookJob, attempt: number): TraceSpan {
    if (!this.tracing?.enabled) return NOOP_SPAN;
    const { message } = job;
    let target = 'webhook';
    try {
      // Origin and path only: a receiver's URL may carry a token in its query.
      const url = new URL(job.url);
      target = `${url.origin}${url.pathname}`;
    } catch {
      // An invalid URL fails the delivery below, with the span.
    }
    return this.tracing.start(
      'webhook POST',
      { taskId: message.taskId, ...(message.attempt ? { attempt: message.attempt } : {}) },
      {
        kind: 'client',
        attributes: {
          'http.request.method': 'POST',
          'url.full': target,
          [VIGIL.taskId]: message.taskId,
          [VIGIL.messageKind]: message.kind,
          [VIGIL.webhookAttempt]: attempt,
        },
      },
    );
  }

  private async deliver(job: WebhookJob, attempt: number, now: number, span: TraceSpan): Promise<number> {
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
          ...traceHeader(span),
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

function traceHeader(span: TraceSpan): Record<string, string> {
  const traceparent = span.traceparent();
  return traceparent ? { traceparent } : {};
}
