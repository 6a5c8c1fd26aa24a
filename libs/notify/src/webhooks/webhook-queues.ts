import { Queue } from 'bullmq';
import type { RedisConfig, WebhookConfig } from '@vigil/config';
import { bullConnection } from '@vigil/queue';
import { RedisKeys } from '@vigil/redis';
import type { UserMessage } from '../messages/user-message';

export interface WebhookJob {
  url: string;
  message: UserMessage;
}

export const WEBHOOK_JOB_NAME = 'deliver';

/** The `webhooks{s<n>}` queue of each shard (BullMQ), with the retry policy of a delivery. */
export class WebhookQueues {
  private readonly queues: Queue<WebhookJob>[];

  constructor(
    redisConfig: RedisConfig,
    private readonly config: WebhookConfig,
    private readonly keys: RedisKeys,
  ) {
    const connection = bullConnection(redisConfig);
    this.queues = keys
      .allShards()
      .map(
        (shard) =>
          new Queue<WebhookJob>(keys.webhookQueueName(shard), { connection, prefix: redisConfig.keyPrefix }),
      );
  }

  queueFor(taskId: string): Queue<WebhookJob> {
    return this.queues[this.keys.shardOf(taskId)];
  }

  /**
   * jobId = message id: adding the same message again is a no-op while its job is kept, and jobs
   * are kept (completed a day, failed a week) far longer than any redelivery can take.
   * Backoff doubles from WEBHOOK_BACKOFF_MS with up to 50% jitter, for WEBHOOK_MAX_ATTEMPTS tries.
   */
  async add(job: WebhookJob): Promise<void> {
    await this.queueFor(job.message.taskId).add(WEBHOOK_JOB_NAME, job, {
      jobId: job.message.id,
      attempts: this.config.webhookMaxAttempts,
      backoff: { type: 'exponential', delay: this.config.webhookBackoffMs, jitter: 0.5 },
      removeOnComplete: { age: 24 * 3_600 },
      removeOnFail: { age: 7 * 24 * 3_600 },
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((queue) => queue.close()));
  }
}
