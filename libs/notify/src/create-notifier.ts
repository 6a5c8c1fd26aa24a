import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { sectionsOf, type VigilConfig } from '@vigil/config';
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
 * The whole config is for TaskRepository; every other part gets only its sections.
 */
export function createNotifier(
  redis: Redis,
  keys: RedisKeys,
  config: VigilConfig,
  registry?: Registry,
): Notifier {
  const sections = sectionsOf(config);
  const log = new MessageLog(redis, keys);
  const queues = new WebhookQueues(sections.redis, sections.webhooks, keys);
  const outbox = new DeliveryOutbox(redis, keys, [new WebhookChannel(queues, sections.webhooks)]);
  const reports = new TaskReportReader(new TaskContextStore(redis, keys));
  const handler = new EventHandler(
    new TaskRepository(redis, keys, config),
    log,
    outbox,
    reports,
    sections.server.publicBaseUrl,
  );
  return new Notifier(
    new NotifierConsumer(redis, keys, sections.webhooks, handler),
    new UpdateScheduler(redis, keys, sections.clocks, sections.limits, log, outbox),
    outbox,
    new WebhookWorkers(
      redis,
      keys,
      sections.redis,
      sections.webhooks,
      new WebhookSender(sections.webhooks),
      registry && new WebhookMetrics(registry, redis, keys),
    ),
    queues,
    tickIntervalMs(sections.clocks.userUpdateIntervalMs),
  );
}
