import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig, VigilConfig } from '@vigil/config';
import { RedisKeys } from '@vigil/redis';

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
 * other's keys; `close` deletes everything under the prefix.
 */
export class RedisTestContext {
  readonly prefix: string;
  readonly redis: Redis;
  readonly config: VigilConfig;
  readonly keys: RedisKeys;

  constructor(name: string, env: Record<string, string> = {}) {
    assertRedisAllowed(name);
    this.prefix = `test-${name}-${randomBytes(4).toString('hex')}`;
    this.config = loadConfig({ ...process.env, ...env, KEY_PREFIX: this.prefix });
    this.redis = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    this.keys = new RedisKeys(this.config.keyPrefix, this.config.shards);
  }

  /** Environment for child processes that must share this context's prefix. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return { KEY_PREFIX: this.prefix, REDIS_URL: this.config.redisUrl, ...extra };
  }

  async cleanup(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await this.redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    // BullMQ queue names carry the shard tag after the prefix; they match the same pattern.
  }

  async close(): Promise<void> {
    await this.cleanup();
    await this.redis.quit();
  }
}
