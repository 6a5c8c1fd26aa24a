import { randomBytes } from 'node:crypto';
import { StreamConsumer, taskEventFields } from '@vigil/events';
import { createRedis, RedisKeys } from '@vigil/redis';
import { SmallRedis } from '@vigil/testing';
import type { Redis } from 'ioredis';

/**
 * The event consumer (the notifier's) through a full Redis and then a Redis restart (docs/operations.md,
 * "A full Redis"): a handler's write refused for OOM leaves its event pending, and an entry Redis
 * delivered to the consumer whose reply a restart lost is pending too; the consumer, alive all
 * along, handles both itself once Redis takes writes again. `claimIdleMs` is ten minutes here, so
 * XAUTOCLAIM (a dead consumer's rescue) cannot be what handles them.
 */
describe('StreamConsumer through a full Redis and a restart', () => {
  let small: SmallRedis;
  let redis: Redis;
  const keys = new RedisKeys(`vigil-test:consumer-restart:${randomBytes(4).toString('hex')}:`, 1);

  beforeAll(async () => {
    small = await SmallRedis.start({ persistent: true });
    redis = createRedis(small.url, 'consumer-restart');
    redis.on('error', () => undefined);
  });

  afterAll(async () => {
    redis.disconnect();
    await small.stop();
  });

  const until = async (condition: () => boolean, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const publish = (taskId: string) =>
    redis.xadd(
      keys.events(0),
      '*',
      ...taskEventFields({
        type: 'task.message',
        taskId,
        tenantId: 'acme',
        attempt: 1,
        at: Date.now(),
        status: 'running',
        from: 'running',
        data: { text: taskId } as never,
      }),
    );

  it('handles the event a full Redis left pending and every event after a restart', async () => {
    const handled = new Set<string>();
    let gate: (() => void) | undefined;
    const consumer = new StreamConsumer(
      redis,
      keys,
      { group: 'notifier', consumer: 'c1', claimIdleMs: 600_000, blockMs: 200 },
      async (event) => {
        if (event.taskId === 'during-full' && handled.size === 1 && !gate)
          await new Promise<void>((resolve) => (gate = resolve));
        // The handler's own write, as the notifier appends a message: refused while Redis is full.
        await redis.set(`${keys.task(event.taskId)}:handled`, '1');
        handled.add(event.taskId);
      },
    );
    await consumer.start();
    await publish('before');
    await until(() => handled.has('before'));

    await publish('during-full');
    await until(() => gate !== undefined);
    await small.fill();
    gate!();
    // Refused (OOM): left pending, read again by its consumer, refused again while full.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(handled.has('during-full')).toBe(false);
    await small.free();
    await until(() => handled.has('during-full'));

    // Delivered to c1 and recorded pending, its reply lost as the restart cut the connection.
    await consumer.stop();
    await publish('reply-lost');
    await redis.xreadgroup('GROUP', 'notifier', 'c1', 'COUNT', 10, 'STREAMS', keys.events(0), '>');
    await consumer.start();
    await small.restart();
    await publish('after-restart');
    await until(() => handled.has('after-restart') && handled.has('reply-lost'));
    await consumer.stop();
    const pending = (await redis.xpending(keys.events(0), 'notifier')) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });
});
