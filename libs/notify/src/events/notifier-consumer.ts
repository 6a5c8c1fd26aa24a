import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { WebhookConfig } from '@vigil/config';
import { StreamConsumer } from '@vigil/events';
import { RedisKeys } from '@vigil/redis';
import type { EventHandler } from './event-handler';

export const NOTIFIER_GROUP = 'notifier';

/**
 * The notifier's place in the event bus: one consumer group over every shard's stream, one consumer
 * per process. Messages a dead notifier had read but not acknowledged are claimed by a live one
 * after NOTIFIER_CLAIM_IDLE_MS (StreamConsumer's XAUTOCLAIM).
 */
export class NotifierConsumer {
  private readonly logger = new Logger(NotifierConsumer.name);
  readonly name = `notifier-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private consumer?: StreamConsumer;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly config: WebhookConfig,
    private readonly handler: EventHandler,
  ) {}

  async start(): Promise<void> {
    this.consumer = new StreamConsumer(
      this.redis,
      this.keys,
      { group: NOTIFIER_GROUP, consumer: this.name, claimIdleMs: this.config.notifierClaimIdleMs },
      async (event) => {
        await this.handler.handle(event);
      },
    );
    await this.consumer.start();
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = undefined;
    for (const shard of this.keys.allShards()) {
      await this.forget(shard).catch((error: unknown) =>
        this.logger.warn(`leaving consumer ${this.name} in the group of shard ${shard}: ${String(error)}`),
      );
    }
  }

  /**
   * A clean exit leaves nothing pending: the consumer is dropped so the group lists live ones only.
   * With anything pending it stays, so those events are claimed (DELCONSUMER would discard them).
   */
  private async forget(shard: number): Promise<void> {
    const stream = this.keys.events(shard);
    const pending = (await this.redis.xpending(stream, NOTIFIER_GROUP, '-', '+', 1, this.name)) as unknown[];
    if (pending.length === 0) await this.redis.xgroup('DELCONSUMER', stream, NOTIFIER_GROUP, this.name);
  }
}
