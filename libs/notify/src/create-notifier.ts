import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { VigilConfig } from '@vigil/config';
import { RedisKeys } from '@vigil/redis';
import { MessageLog, TaskContextStore, TaskReportReader, TaskRepository } from '@vigil/tasks';
import { DeliveryOutbox } from './delivery/delivery-outbox';
import { EventHandler } from './events/event-handler';
import { NotifierConsumer } from './events/notifier-consumer';
import { Notifier, tickIntervalMs } from './notifier';
import { UpdateScheduler } from './updates/update-scheduler';
import { WebhookChannel } from './webhooks/webhook-channel';
import { WebhookMetrics } from './webhooks/webhook-metrics';
import { WebhookQueues } from './webhooks/webhook-queues';
import { WebhookSender } from './webhooks/webhook-sender';
import { WebhookWorkers } from './webhooks/webhook-workers';

/**
 * Wires one notifier from a Redis connection and the config. Plain constructors, so the Nest module,
 * tests and the bench build exactly the same object graph. `registry`: where the webhook metrics go.
 */
export function createNotifier(
  redis: Redis,
  keys: RedisKeys,
  config: VigilConfig,
  registry?: Registry,
): Notifier {
  const log = new MessageLog(redis, keys);
  const queues = new WebhookQueues(config, keys);
  const outbox = new DeliveryOutbox(redis, keys, [new WebhookChannel(queues, config)]);
  const reports = new TaskReportReader(new TaskContextStore(redis, keys));
  const handler = new EventHandler(
    new TaskRepository(redis, keys, config),
    log,
    outbox,
    reports,
    config.publicBaseUrl,
  );
  return new Notifier(
    new NotifierConsumer(redis, keys, config, handler),
    new UpdateScheduler(redis, keys, config, log, outbox),
    outbox,
    new WebhookWorkers(
      redis,
      keys,
      config,
      new WebhookSender(config),
      registry && new WebhookMetrics(registry, redis, keys),
    ),
    queues,
    tickIntervalMs(config.userUpdateIntervalMs),
  );
}
