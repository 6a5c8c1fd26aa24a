import type { ConnectionOptions } from 'bullmq';
import { createRedis, RedisTarget } from '@vigil/redis';

/**
 * BullMQ's connection: options from a redis:// or rediss:// URL (each queue and worker opens its
 * own), or, on a Redis Cluster (REDIS_CLUSTER_NODES), a Cluster client from the one factory.
 * BullMQ treats a client instance as shared: its workers duplicate it for their blocking reads and
 * never close it; the process's exit does. Queue keys are `<prefix>:<queue>{s<n>}:…` and every
 * queue name carries its shard's hash tag (RedisKeys), so each BullMQ script stays in one slot
 * (docs/operations.md, "Past one machine").
 */
export function bullConnection(
  target: RedisTarget | string,
  connectionName = 'vigil-bull',
): ConnectionOptions {
  if (typeof target !== 'string' && target.redisClusterNodes.length > 0) {
    return createRedis(target, connectionName);
  }
  const url = new URL(typeof target === 'string' ? target : target.redisUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username || undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}
