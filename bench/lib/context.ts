import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig, VigilConfig } from '@vigil/config';
import { RedisKeys } from '@vigil/redis';

/** The settings every bench pins, so a developer's own environment cannot skew a run. */
const PINNED: Record<string, string> = {
  SHARDS: '1',
  ANTHROPIC_API_KEY: '',
  GEMINI_API_KEY: '',
  GLOBAL_SPEND_LIMIT_USD: '',
  REDLOCK_URLS: '',
  LOG_LEVEL: 'info',
  // Traces off unless a bench turns them on (tracing.bench.ts).
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
};

/**
 * One benchmark's slice of the shared Redis: a unique KEY_PREFIX, its config and key names, and the
 * connections it opened. `close` deletes every key under the prefix (SCAN + UNLINK).
 */
export class BenchContext {
  readonly prefix: string;
  readonly config: VigilConfig;
  readonly keys: RedisKeys;
  /** Commands for the bench's own reads and writes. */
  readonly redis: Redis;
  /** A separate connection for INFO, so measuring never shares a socket with what is measured. */
  readonly stats: Redis;
  private readonly connections: Redis[] = [];

  constructor(name: string, env: Record<string, string> = {}) {
    this.prefix = `bench-${name}-${randomBytes(4).toString('hex')}`;
    this.config = loadConfig(this.env(env));
    this.keys = new RedisKeys(this.config.keyPrefix, this.config.shards);
    this.redis = this.connect();
    this.stats = this.connect();
  }

  /** Environment for Vigil (config or child processes) under this bench's prefix. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...PINNED,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      KEY_PREFIX: this.prefix,
      ...extra,
    };
  }

  connect(): Redis {
    const connection = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null });
    this.connections.push(connection);
    return connection;
  }

  async cleanup(): Promise<number> {
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 2000);
      if (keys.length > 0) deleted += await this.redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    return deleted;
  }

  async close(): Promise<void> {
    try {
      await this.cleanup();
    } finally {
      await Promise.all(this.connections.map((c) => c.quit().catch(() => c.disconnect())));
    }
  }
}
