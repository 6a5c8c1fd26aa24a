import { Logger } from '@nestjs/common';
import type { DeliveryOutbox } from './delivery/delivery-outbox';
import type { NotifierConsumer } from './events/notifier-consumer';
import type { UpdateScheduler } from './updates/update-scheduler';
import type { WebhookQueues } from './webhooks/webhook-queues';
import type { WebhookWorkers } from './webhooks/webhook-workers';

const OUTBOX_SWEEP_MS = 2_000;

/** Due updates are looked for ten times per interval (bounded), so one goes out close to its slot. */
export function tickIntervalMs(userUpdateIntervalMs: number): number {
  return Math.min(1_000, Math.max(20, Math.floor(userUpdateIntervalMs / 10)));
}

/**
 * The notifier's moving parts, started and stopped together: the event consumer, the due-update
 * loop (with the outbox sweep) and the webhook workers. Never two ticks at once; `stop` waits for
 * the one in flight, then for the consumer and the webhook deliveries in progress.
 */
export class Notifier {
  private readonly logger = new Logger(Notifier.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;
  private lastSweep = 0;

  constructor(
    readonly consumer: NotifierConsumer,
    readonly updates: UpdateScheduler,
    readonly outbox: DeliveryOutbox,
    readonly webhooks: WebhookWorkers,
    private readonly queues: WebhookQueues,
    private readonly tickMs: number,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.webhooks.start();
    await this.consumer.start();
    this.schedule(0);
    this.logger.log(`notifier ${this.consumer.name} started (tick ${this.tickMs} ms)`);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error: unknown) => this.logger.error(`notifier tick failed: ${String(error)}`))
        .finally(() => this.schedule(this.tickMs));
    }, delay);
  }

  private async tick(): Promise<void> {
    await this.updates.tick();
    if (Date.now() - this.lastSweep >= OUTBOX_SWEEP_MS) {
      this.lastSweep = Date.now();
      await this.outbox.sweep();
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.consumer.stop();
    await this.outbox.drain();
    await this.webhooks.stop();
    await this.queues.close();
    this.logger.log(`notifier ${this.consumer.name} stopped`);
  }
}
