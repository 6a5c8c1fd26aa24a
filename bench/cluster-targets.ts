import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig, VigilConfig } from '@vigil/config';
import { clusterSlot, createRedis, isCluster, masterNodes, RedisKeys } from '@vigil/redis';
import { freePort, LocalRedisCluster } from '@vigil/testing';
import { CommandCounts, diffCommandStats, readCommandStats } from './lib/commandstats';
import { sleep } from './lib/stats';

/** Commands the Cluster clients, the replicas or the measurement itself send: not Vigil's work. */
export const CLUSTER_UPKEEP = [
  'info',
  'cluster|slots',
  'cluster|info',
  'cluster|nodes',
  'cluster|shards',
  'client|list',
];

/** What the cluster bench runs against: a private redis-server, or a private local cluster. */
export interface BenchTarget {
  name: 'single' | 'cluster';
  /** Environment that points Vigil at it (REDIS_URL or REDIS_CLUSTER_NODES). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** One redis-server on a free port, no persistence: the same binary and settings as the cluster's nodes. */
export async function startSingleRedis(): Promise<BenchTarget> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-single-'));
  const server: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'no', '--save', ''],
    { stdio: 'ignore' },
  );
  const probe = new Redis({ port, lazyConnect: true, retryStrategy: () => 100, maxRetriesPerRequest: null });
  probe.on('error', () => undefined);
  await probe.connect().catch(() => undefined);
  while ((await probe.ping().catch(() => '')) !== 'PONG') await sleep(50);
  probe.disconnect();
  return {
    name: 'single',
    env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_CLUSTER_NODES: '' },
    stop: async () => {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startClusterRedis(): Promise<BenchTarget> {
  const cluster = await LocalRedisCluster.start();
  return { name: 'cluster', env: cluster.env(), stop: () => cluster.stop() };
}

/** A run's prefix, config and connection on one target; commandstats are read master by master. */
export class TargetContext {
  readonly prefix = `bench-cluster-${randomBytes(4).toString('hex')}`;
  readonly config: VigilConfig;
  readonly keys: RedisKeys;
  readonly redis: Redis;

  constructor(
    readonly target: BenchTarget,
    readonly shards: number,
  ) {
    this.config = loadConfig(this.env());
    this.keys = new RedisKeys(this.prefix, shards);
    this.redis = createRedis(this.config, 'vigil-bench');
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      SHARDS: String(this.shards),
      ANTHROPIC_API_KEY: '',
      GEMINI_API_KEY: '',
      GLOBAL_SPEND_LIMIT_USD: '',
      REDLOCK_URLS: '',
      LOG_LEVEL: 'info',
      KEY_PREFIX: this.prefix,
      ...this.target.env,
      ...extra,
    };
  }

  /** INFO commandstats of every master, keyed by its port. */
  async commandStats(): Promise<Map<number, CommandCounts>> {
    await this.redis.ping();
    const masters = masterNodes(this.redis);
    const stats = await Promise.all(masters.map((node) => readCommandStats(node)));
    return new Map(masters.map((node, i) => [Number(node.options.port), stats[i]]));
  }

  /** The shards each master holds, by port (CLUSTER SLOTS: a shard is the slot of its hash tag). */
  async shardsByMaster(): Promise<Map<number, number[]>> {
    if (!isCluster(this.redis)) return new Map([[Number(this.redis.options.port), this.keys.allShards()]]);
    const ranges = (await this.redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const owners = new Map<number, number[]>();
    for (const shard of this.keys.allShards()) {
      const slot = clusterSlot(`{s${shard}}`);
      const port = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1] ?? -1;
      owners.set(port, [...(owners.get(port) ?? []), shard]);
    }
    return owners;
  }

  close(): Promise<unknown> {
    return this.redis.quit();
  }
}

/** Per master, the commands between two snapshots, cluster upkeep and measuring left out. */
export function commandsPerMaster(
  before: Map<number, CommandCounts>,
  after: Map<number, CommandCounts>,
): Map<number, CommandCounts> {
  return new Map(
    [...after].map(([port, counts]) => [
      port,
      diffCommandStats(before.get(port) ?? {}, counts, CLUSTER_UPKEEP),
    ]),
  );
}
