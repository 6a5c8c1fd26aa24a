import { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';

/** Where Redis is: one server (REDIS_URL), or a Redis Cluster's seed nodes (REDIS_CLUSTER_NODES). */
export interface RedisTarget {
  redisUrl: string;
  redisClusterNodes: { host: string; port: number }[];
}

/** BullMQ needs maxRetriesPerRequest: null; the same settings suit every long-lived client here. */
function nodeOptions(connectionName: string): RedisOptions {
  return { connectionName, maxRetriesPerRequest: null, enableReadyCheck: true };
}

/**
 * Options of every Cluster client (docs/operations.md, "Past one machine"). A failover makes a
 * master's slots unreachable until its replica is promoted (about cluster-node-timeout plus a
 * second); commands to them are retried on MOVED, ASK, TRYAGAIN, CLUSTERDOWN and a closed
 * connection, 200 ms apart, up to 60 times (12 s), before they fail to their caller. Reads go to
 * masters: a replica may lag, and every read here decides something. No keyPrefix: every key
 * carries the prefix and its hash tag itself (RedisKeys), and BullMQ refuses a prefixed client.
 */
export function clusterOptions(connectionName: string): ClusterOptions {
  return {
    redisOptions: nodeOptions(connectionName),
    enableReadyCheck: true,
    scaleReads: 'master',
    maxRedirections: 60,
    retryDelayOnMoved: 0,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    // Learns a promoted replica within 2 s even when no command was redirected.
    slotsRefreshInterval: 2_000,
    clusterRetryStrategy: (times: number) => Math.min(100 * times, 2_000),
  };
}

/**
 * The one place a Redis connection is made. On a cluster the client is an ioredis `Cluster`,
 * returned under the `Redis` type every repository is written against: Cluster implements the same
 * command interface, routes each command by its key's slot, loads scripts per node (EVALSHA with
 * NOSCRIPT fallback, `defineCommand`) and subscribes over the cluster bus. What must know the
 * difference — enumerating keys or clients, health — asks `isCluster` (libs/redis/src/cluster-nodes.ts).
 */
export function createRedis(target: RedisTarget | string, connectionName: string): Redis {
  if (typeof target !== 'string' && target.redisClusterNodes.length > 0) {
    return new Cluster(target.redisClusterNodes, clusterOptions(connectionName)) as unknown as Redis;
  }
  return new Redis(typeof target === 'string' ? target : target.redisUrl, nodeOptions(connectionName));
}

export function isCluster(redis: Redis): boolean {
  return (redis as unknown as { isCluster?: boolean }).isCluster === true;
}

export function asCluster(redis: Redis): Cluster | undefined {
  return isCluster(redis) ? (redis as unknown as Cluster) : undefined;
}

/**
 * A connection whose name must be visible on every master (a Worker's liveness connection: the
 * Watcher reads names back from CLIENT LIST, node by node). On a cluster it opens a connection to
 * each master now and to each node the client learns later (a promoted replica), instead of only
 * where its commands happen to go.
 */
export async function createPresenceConnection(target: RedisTarget, connectionName: string): Promise<Redis> {
  const redis = createRedis(target, connectionName);
  const cluster = asCluster(redis);
  if (!cluster) {
    await redis.ping();
    return redis;
  }
  cluster.on('+node', (node: Redis) => {
    node.ping().catch(() => undefined);
  });
  await cluster.ping();
  await Promise.all(cluster.nodes('master').map((node) => node.ping()));
  return redis;
}
