import { Logger } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RedisConfig, WebhookConfig } from '@vigil/config';
import { bullConnection } from '@vigil/queue';
import { RedisKeys } from '@vigil/redis';
import type { WebhookMetrics } from './webhook-metrics';
import type { WebhookJob } from './webhook-queues';
import { WebhookSender } from './webhook-sender';

const DEAD_LETTERS_KEPT = 10_000;

export interface DeadLetter {
  messageId: string;
  taskId: string;
  url: string;
  reason: string;
  attempts: number;
  failedAt: string;
}

/**
 * Runs the webhook queues of every shard. A job that used all its attempts (or failed for good) stays
 * in BullMQ's failed set and is also listed in the shard's dead-letter list, so it is visible without
 * the queue tooling.
 */
export class WebhookWorkers {
  private readonly logger = new Logger(WebhookWorkers.name);
  private workers: Worker<WebhookJob>[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly redisConfig: RedisConfig,
    private readonly config: WebhookConfig,
    private readonly sender: WebhookSender,
    private readonly metrics?: WebhookMetrics,
  ) {}

  start(): void {
    const connection = bullConnection(this.redisConfig);
    // An attempt cannot outlive its timeout, so a lock a little longer suffices and a killed
    // notifier's in-flight delivery is retried within seconds rather than BullMQ's default 30 s.
    const lockDuration = this.config.webhookTimeoutMs + 5_000;
    this.workers = this.keys.allShards().map((shard) => {
      const worker = new Worker<WebhookJob>(
        this.keys.webhookQueueName(shard),
        (job) => this.sender.send(job.data, job.attemptsMade + 1),
        {
          connection,
          prefix: this.redisConfig.keyPrefix,
          concurrency: this.config.webhookConcurrency,
          lockDuration,
          stalledInterval: lockDuration,
        },
      );
      worker.on('failed', (job, error) => {
        if (job) void this.onFailed(shard, job, error);
      });
      worker.on('error', (error) => this.logger.error(`webhook worker: ${String(error)}`));
      return worker;
    });
  }

  private async onFailed(shard: number, job: Job<WebhookJob>, error: Error): Promise<void> {
    // BullMQ reports every failed attempt; only a finished job (no retry left) is dead.
    this.metrics?.failedAttempt(Boolean(job.finishedOn));
    if (!job.finishedOn) return;
    this.metrics?.deadLettered();
    const entry: DeadLetter = {
      messageId: job.data.message.id,
      taskId: job.data.message.taskId,
      url: job.data.url,
      reason: error.message,
      attempts: job.attemptsMade,
      failedAt: new Date(job.finishedOn).toISOString(),
    };
    this.logger.warn(`webhook ${entry.messageId} to ${entry.url} dead-lettered: ${entry.reason}`);
    const key = this.keys.webhookDeadLetters(shard);
    await this.redis
      .pipeline()
      .lpush(key, JSON.stringify(entry))
      .ltrim(key, 0, DEAD_LETTERS_KEPT - 1)
      .exec()
      .catch((failure: unknown) => this.logger.error(`recording dead letter: ${String(failure)}`));
  }

  async deadLetters(shard: number): Promise<DeadLetter[]> {
    const raw = await this.redis.lrange(this.keys.webhookDeadLetters(shard), 0, -1);
    return raw.map((entry) => JSON.parse(entry) as DeadLetter);
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    this.workers = [];
  }
}
