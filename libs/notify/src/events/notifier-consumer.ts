import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { VigilConfig } from '@vigil/config';
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
  readonly name = `notifier-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private consumer?: StreamConsumer;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly config: VigilConfig,
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
    // A clean exit leaves nothing pending; drop the consumer so the group lists only live ones.
    for (const shard of this.keys.allShards()) {
      const pending = (await this.redis.xpending(
        this.keys.events(shard),
        NOTIFIER_GROUP,
        '-',
        '+',
        1,
        this.name,
      )) as unknown[];
      if (pending.length === 0)
        await this.redis.xgroup('DELCONSUMER', this.keys.events(shard), NOTIFIER_GROUP, this.name);
    }
  }
}
