import type { Redis } from 'ioredis';
import { asCluster } from './redis-connection';

/**
 * The servers that hold keys: each master of a cluster, or the one Redis. Anything that enumerates
 * (SCAN, CLIENT LIST, INFO) must ask each of them; a Cluster client would send a keyless command to
 * one random node (docs/operations.md, "Past one machine").
 */
export function masterNodes(redis: Redis): Redis[] {
  return asCluster(redis)?.nodes('master') ?? [redis];
}

/** Every key matching `pattern`, master by master, in batches (SCAN, never KEYS). */
export async function* scanKeys(redis: Redis, pattern: string, count = 1_000): AsyncGenerator<string[]> {
  for (const node of masterNodes(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      if (keys.length > 0) yield keys;
      cursor = next;
    } while (cursor !== '0');
  }
}

/**
 * Deletes every key matching `pattern` on every master; returns how many were removed. One UNLINK
 * per key: a cluster node refuses a multi-key command across slots, even slots it holds itself.
 */
export async function unlinkMatching(redis: Redis, pattern: string): Promise<number> {
  let removed = 0;
  for (const node of masterNodes(redis)) {
    for await (const keys of scanKeys(node, pattern)) {
      const pipeline = node.pipeline();
      for (const key of keys) pipeline.unlink(key);
      for (const [error, count] of (await pipeline.exec()) ?? []) {
        if (error) throw error;
        removed += Number(count);
      }
    }
  }
  return removed;
}

/** The names of the normal client connections of every master (a name on any one counts). */
export async function clientNames(redis: Redis): Promise<Set<string>> {
  const lists = await Promise.all(
    masterNodes(redis).map((node) => node.call('CLIENT', 'LIST', 'TYPE', 'normal') as Promise<string>),
  );
  const names = new Set<string>();
  for (const line of lists.join('\n').split('\n')) {
    const name = /(?:^| )name=(\S+)/.exec(line)?.[1];
    if (name !== undefined) names.add(name);
  }
  return names;
}

/** How long the most recently (re)started master has been up. */
export async function uptimeMs(redis: Redis): Promise<number> {
  const infos = await Promise.all(
    masterNodes(redis).map((node) => node.call('INFO', 'server') as Promise<string>),
  );
  return Math.min(
    ...infos.map((info) => Number(/uptime_in_seconds:(\d+)/.exec(info)?.[1] ?? Infinity) * 1000),
  );
}

export interface ClusterHealth {
  /** `ok` on every master, or the first other state seen. */
  state: string;
  masters: number;
}

/** CLUSTER INFO's cluster_state on every master; undefined for a single Redis. */
export async function clusterHealth(redis: Redis): Promise<ClusterHealth | undefined> {
  const cluster = asCluster(redis);
  if (!cluster) return undefined;
  const masters = cluster.nodes('master');
  const infos = await Promise.all(masters.map((node) => node.call('CLUSTER', 'INFO') as Promise<string>));
  const states = infos.map((info) => /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown');
  return { state: states.find((state) => state !== 'ok') ?? 'ok', masters: masters.length };
}
