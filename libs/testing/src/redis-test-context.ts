import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { loadConfig, sectionsOf, VigilConfig, type ConfigSections } from '@vigil/config';
import { bullConnection, QUEUE_STREAMS } from '@vigil/queue';
import { createRedis, RedisKeys, unlinkMatching } from '@vigil/redis';

/**
 * The unit tier (`*.spec.ts`, jest project `unit`) runs without Redis: its setup file
 * (test/setup-unit.js) sets VIGIL_TEST_TIER=unit and points REDIS_URL at a closed port. A spec that
 * needs a real Redis is an integration spec and is named `*.int-spec.ts`.
 */
function assertRedisAllowed(name: string): void {
  if (process.env.VIGIL_TEST_TIER !== 'unit') return;
  throw new Error(
    `RedisTestContext('${name}') in a unit spec: the unit tier (*.spec.ts) has no Redis. ` +
      'A spec that talks to Redis is an integration spec: rename it to *.int-spec.ts (npm run test:int).',
  );
}

/**
 * A real Redis connection with a key prefix unique to one test file, so test files never see each
 * other's keys. What a test opens through it (queues, `onClose`) is closed by `close`, which then
 * deletes everything under the prefix. With REDIS_CLUSTER_NODES in `env` (a LocalRedisCluster's
 * `env()`), the connection is a Cluster client and cleanup goes master by master.
 */
export class RedisTestContext {
  readonly prefix: string;
  readonly redis: Redis;
  readonly config: VigilConfig;
  readonly keys: RedisKeys;
  private readonly closers: Array<() => Promise<unknown>> = [];

  constructor(name: string, env: Record<string, string> = {}) {
    assertRedisAllowed(name);
    this.prefix = `test-${name}-${randomBytes(4).toString('hex')}`;
    this.config = loadConfig({ ...process.env, ...env, KEY_PREFIX: this.prefix });
    this.redis = createRedis(this.config, `vigil-test:${this.prefix}`);
    this.keys = new RedisKeys(this.config.keyPrefix, this.config.shards);
  }

  /** The config's sections, for a service built by hand that injects more than one of them. */
  get sections(): ConfigSections {
    return sectionsOf(this.config);
  }

  /** Environment for child processes that must share this context's prefix (and cluster). */
  env(extra: Record<string, string> = {}): Record<string, string> {
    const cluster = this.config.redisClusterNodes.map((node) => `${node.host}:${node.port}`).join(',');
    return {
      KEY_PREFIX: this.prefix,
      REDIS_URL: this.config.redisUrl,
      ...(cluster ? { REDIS_CLUSTER_NODES: cluster } : {}),
      ...extra,
    };
  }

  /** A shard's slice queue (BullMQ, under this prefix), as the API and Watcher publish to it. */
  sliceQueue(shard = 0): Queue {
    return this.queue(this.keys.sliceQueueName(shard));
  }

  /** A shard's wake queue (BullMQ, under this prefix). */
  wakeQueue(shard = 0): Queue {
    return this.queue(this.keys.wakeQueueName(shard));
  }

  /** The queue of the schedules' job schedulers (BullMQ, under this prefix). */
  scheduleQueue(): Queue {
    return this.queue(this.keys.scheduleQueueName());
  }

  /** Runs `close` when the context closes, last registered first, before the keys are deleted. */
  onClose(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }

  private queue(name: string): Queue {
    const queue = new Queue(name, {
      connection: bullConnection(this.config.redisUrl),
      prefix: this.prefix,
      streams: QUEUE_STREAMS,
    });
    this.onClose(() => queue.close());
    return queue;
  }

  /** Deletes every key under the prefix; BullMQ's keys (`<prefix>:turns{s<n>}:…`) match it too. */
  async cleanup(): Promise<void> {
    await unlinkMatching(this.redis, `${this.prefix}*`);
  }

  async close(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close();
    await this.cleanup();
    await this.redis.quit();
  }
}
