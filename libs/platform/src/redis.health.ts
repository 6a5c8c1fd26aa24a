import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import { clusterHealth, REDIS, storeMemory } from '@vigil/redis';

const TIMEOUT_MS = 1000;

/**
 * Up when Redis answers within a second. On a Redis Cluster that means every master answers
 * CLUSTER INFO with `cluster_state:ok`: a cluster that lost a master's slots (during a failover,
 * or for good) refuses those keys, and the app is not healthy while it does. A full Redis
 * (`maxmemory` reached under `noeviction`) is up but `degraded: 'store_full'`: it still answers
 * every read, and restarting the app would not free a byte (docs/operations.md, "A full Redis").
 */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly indicator: HealthIndicatorService,
  ) {}

  async check(): Promise<HealthIndicatorResult> {
    const indicator = this.indicator.check('redis');
    const started = Date.now();
    try {
      const cluster = await withTimeout(this.probe());
      if (cluster && cluster.state !== 'ok') {
        return indicator.down({ message: `cluster_state is ${cluster.state}`, clusterState: cluster.state });
      }
      const memory = await withTimeout(storeMemory(this.redis));
      return indicator.up({
        latencyMs: Date.now() - started,
        ...(cluster ? { clusterState: cluster.state, masters: cluster.masters } : {}),
        usedBytes: memory.usedBytes,
        maxmemoryBytes: memory.maxBytes,
        ...(memory.full ? { degraded: 'store_full' } : {}),
      });
    } catch (error) {
      return indicator.down({ message: String(error) });
    }
  }

  private async probe() {
    const cluster = await clusterHealth(this.redis);
    if (!cluster) await this.redis.ping();
    return cluster;
  }
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`ping timed out after ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
