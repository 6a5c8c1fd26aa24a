import { Queue } from 'bullmq';
import type { RedisConfig, WebhookConfig } from '@vigil/config';
import { bullConnection, JobRetention, QUEUE_STREAMS, removalOptions } from '@vigil/queue';
import { RedisKeys } from '@vigil/redis';
import type { UserMessage } from '../messages/user-message';

export interface WebhookJob {
  url: string;
  message: UserMessage;
}

export const WEBHOOK_JOB_NAME = 'deliver';

/**
 * Webhook deliveries: the job id is the message id, so a delivery handed over again while its job
 * is kept is not sent twice. The outbox hands an entry over again only when a notifier died
 * between queueing it and removing it (DeliveryOutbox: stranded after 5 s, swept every 2 s), so a
 * day or 10,000 newer deliveries on the shard is far longer than that window. A failed delivery
 * is also in the shard's dead-letter list (WebhookWorkers, capped at 10,000), so its job goes after
 * a week or 10,000 newer failures.
 */
export const WEBHOOK_JOB_RETENTION: JobRetention = {
  completed: { age: 24 * 3_600, count: 10_000 },
  failed: { age: 7 * 24 * 3_600, count: 10_000 },
};

/** The `webhooks{s<n>}` queue of each shard (BullMQ), with the retry policy of a delivery. */
export class WebhookQueues {
  private readonly queues: Queue<WebhookJob>[];

  constructor(
    redisConfig: RedisConfig,
    private readonly config: WebhookConfig,
    private readonly keys: RedisKeys,
    private readonly retention: JobRetention = WEBHOOK_JOB_RETENTION,
  ) {
    const connection = bullConnection(redisConfig);
    this.queues = keys.allShards().map(
      (shard) =>
        new Queue<WebhookJob>(keys.webhookQueueName(shard), {
          connection,
          prefix: redisConfig.keyPrefix,
          streams: QUEUE_STREAMS,
        }),
    );
  }

  queueFor(taskId: string): Queue<WebhookJob> {
    return this.queues[this.keys.shardOf(taskId)];
  }

  /**
   * jobId = message id: adding the same message again is a no-op while its job is kept, and jobs
   * are kept (WEBHOOK_JOB_RETENTION) far longer than the outbox takes to hand an entry over again.
   * Backoff doubles from WEBHOOK_BACKOFF_MS with up to 50% jitter, for WEBHOOK_MAX_ATTEMPTS tries.
   */
  async add(job: WebhookJob): Promise<void> {
    await this.queueFor(job.message.taskId).add(WEBHOOK_JOB_NAME, job, {
      jobId: job.message.id,
      attempts: this.config.webhookMaxAttempts,
      backoff: { type: 'exponential', delay: this.config.webhookBackoffMs, jitter: 0.5 },
      ...removalOptions(this.retention),
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((queue) => queue.close()));
  }
}
