import { Cluster, Redis } from 'ioredis';
import type { RedisTarget } from './redis-connection';

/** What a reachable Redis said about itself. */
export interface RedisProbe {
  version: string;
  /** `maxmemory-policy` (docs/operations.md, "Sizing Redis": `noeviction` is what Vigil needs). */
  maxmemoryPolicy: string | undefined;
}

function field(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

/**
 * One short-lived connection that answers whether Redis is there (`vigil doctor`), unlike
 * createRedis's clients, which wait and reconnect forever: no retry, no offline queue, a connect
 * timeout. Rejects with the connection's own error; always disconnects.
 */
export async function probeRedis(target: RedisTarget, timeoutMs: number): Promise<RedisProbe> {
  const nodeOptions = {
    connectionName: 'vigil-doctor',
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  };
  const redis =
    target.redisClusterNodes.length > 0
      ? new Cluster(target.redisClusterNodes, {
          lazyConnect: true,
          redisOptions: nodeOptions,
          clusterRetryStrategy: () => null,
          enableOfflineQueue: false,
        })
      : new Redis(target.redisUrl, nodeOptions);
  let lastError: unknown;
  // The client emits the connection's own error before connect() rejects with a vaguer one.
  redis.on('error', (error: unknown) => (lastError = error));
  try {
    await redis.connect();
    const info = await redis.info('server');
    // Managed services often refuse CONFIG: then the policy is simply not known (undefined).
    const policy = (await redis.config('GET', 'maxmemory-policy').catch(() => [])) as string[];
    return { version: field(info, 'redis_version') ?? 'unknown', maxmemoryPolicy: policy[1] };
  } catch (error) {
    // ioredis rejects with "Connection is closed."; the emitted error says why (ECONNREFUSED …).
    const cause = lastError instanceof Error ? lastError : error;
    throw new Error((cause as Error).message, { cause: error });
  } finally {
    redis.disconnect();
  }
}
