import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { settingsOf, type ConfigSections } from '@vigil/config';
import { RedisKeys } from '@vigil/redis';
import type { Tracing } from '@vigil/telemetry';
import {
  MessageLog,
  TASK_SETTING_FIELDS,
  TaskContextStore,
  TaskReportReader,
  TaskRepository,
} from '@vigil/tasks';
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

/** The sections a notifier reads. */
export type NotifierSections = Pick<ConfigSections, 'redis' | 'clocks' | 'limits' | 'webhooks' | 'server'>;

/**
 * Wires one notifier from a Redis connection and the config sections it reads. Plain constructors,
 * so the Nest module, tests and the bench build exactly the same object graph. `registry`: where the
 * webhook metrics go; `tracing`: where each delivery's span goes. Each part gets only its sections.
 */
export function createNotifier(
  redis: Redis,
  keys: RedisKeys,
  sections: NotifierSections,
  registry?: Registry,
  tracing?: Tracing,
): Notifier {
  const log = new MessageLog(redis, keys);
  const queues = new WebhookQueues(sections.redis, sections.webhooks, keys);
  const outbox = new DeliveryOutbox(redis, keys, [new WebhookChannel(queues, sections.webhooks)]);
  const reports = new TaskReportReader(new TaskContextStore(redis, keys), sections.server);
  const handler = new EventHandler(
    new TaskRepository(redis, keys, settingsOf(TASK_SETTING_FIELDS, sections.clocks, sections.limits)),
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
      new WebhookSender(sections.webhooks, tracing),
      registry && new WebhookMetrics(registry, redis, keys),
    ),
    queues,
    tickIntervalMs(sections.clocks.userUpdateIntervalMs),
  );
}
