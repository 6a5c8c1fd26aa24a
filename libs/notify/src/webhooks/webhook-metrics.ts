import type { Redis } from 'ioredis';
import { Counter, Gauge, Registry } from 'prom-client';
import { crossSlotPipeline, type RedisKeys } from '@vigil/redis';

/**
 * The notifier's webhook health (docs/operations.md, "Metrics"): failed delivery attempts
 * and dead letters counted as they happen, and the dead-letter lists' length read at scrape time
 * (LLEN per shard), which survives restarts where the counters start again at zero.
 */
export class WebhookMetrics {
  private readonly failures: Counter<'final'>;
  private readonly deadLetters: Counter;

  constructor(registry: Registry, redis: Redis, keys: RedisKeys) {
    this.failures = new Counter({
      name: 'vigil_webhook_failures_total',
      help: 'Failed webhook delivery attempts; final="true" when no retry was left',
      labelNames: ['final'],
      registers: [registry],
    });
    this.deadLetters = new Counter({
      name: 'vigil_webhook_dead_letters_total',
      help: 'Webhook deliveries dead-lettered by this notifier (every attempt failed, or failed for good)',
      registers: [registry],
    });
    new Gauge({
      name: 'vigil_webhook_dead_letter_list',
      help: "Entries in each shard's webhook dead-letter list",
      labelNames: ['shard'],
      registers: [registry],
      async collect() {
        const pipeline = crossSlotPipeline(redis);
        for (const shard of keys.allShards()) pipeline.llen(keys.webhookDeadLetters(shard));
        const replies = (await pipeline.exec()) ?? [];
        this.reset();
        replies.forEach(([error, length], shard) => {
          if (!error) this.set({ shard: String(shard) }, Number(length));
        });
      },
    });
  }

  failedAttempt(final: boolean): void {
    this.failures.inc({ final: String(final) });
  }

  deadLettered(): void {
    this.deadLetters.inc();
  }
}
