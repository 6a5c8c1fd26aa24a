import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { CLOCKS_CONFIG, type ClockConfig } from '@vigil/config';
import { clientNames, REDIS, RedisKeys, uptimeMs } from '@vigil/redis';

/** Workers presumed dead, each with the time it was first seen without its connection. */
export type GoneWorkers = Map<string, number>;

/**
 * Finds Worker processes that are provably gone: registered, but their named Redis connection is
 * no longer connected (the kernel closes a killed process's sockets). A frozen process keeps its
 * connection and is left to the heartbeat deadline.
 *
 * A connection can also vanish for a moment without its process dying (a network blip, a Redis
 * restart: every client reconnects within a second or two). So a Worker counts as gone only once
 * it has stayed away for CONFIRM_MS, never while Redis itself has been up for less than that, and
 * the Supervisor still refuses to recover a task whose heartbeat is newer than the disappearance.
 */
@Injectable()
export class DeadWorkerDetector {
  private readonly missingSince = new Map<string, number>();
  readonly confirmMs: number;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(CLOCKS_CONFIG) config: Pick<ClockConfig, 'livenessIntervalMs' | 'staleAfterMs'>,
  ) {
    // Two looks at least, and about two seconds (the time clients take to reconnect after a Redis
    // restart) unless STALE_AFTER_MS is so short that staleness would decide first.
    this.confirmMs = Math.max(2 * config.livenessIntervalMs, Math.min(2_000, config.staleAfterMs / 4));
  }

  /** Looks once (HKEYS + CLIENT LIST) and returns the Workers confirmed gone by now. */
  async find(now = Date.now()): Promise<GoneWorkers> {
    const registered = await this.redis.hkeys(this.keys.workerRegistry());
    if (registered.length === 0) {
      this.missingSince.clear();
      return new Map();
    }
    // Every master's CLIENT LIST on a cluster: a Worker is alive while any of them sees it.
    const live = new Set<string>();
    for (const name of await clientNames(this.redis)) {
      const workerId = this.keys.workerIdOfClient(name);
      if (workerId !== null) live.add(workerId);
    }
    for (const id of [...this.missingSince.keys()])
      if (live.has(id) || !registered.includes(id)) this.missingSince.delete(id);
    for (const id of registered)
      if (!live.has(id) && !this.missingSince.has(id)) this.missingSince.set(id, now);
    const gone: GoneWorkers = new Map(
      [...this.missingSince].filter(([, since]) => now - since >= this.confirmMs),
    );
    if (gone.size > 0 && (await uptimeMs(this.redis)) < this.confirmMs) return new Map();
    return gone;
  }

  /** Active tasks of one shard last claimed by one of these workers, with the worker of each. */
  async tasksOf(shard: number, workers: GoneWorkers): Promise<{ taskId: string; workerId: string }[]> {
    const active = await this.redis.zrange(this.keys.deadlineIndex(shard), '0', '-1');
    if (active.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of active) pipeline.hmget(this.keys.task(id), 'workerId', 'status');
    const replies = (await pipeline.exec()) ?? [];
    return active.flatMap((taskId, i) => {
      const [workerId, status] = (replies[i]?.[1] as [string | null, string | null]) ?? [null, null];
      const held =
        workerId !== null && workers.has(workerId) && (status === 'running' || status === 'waiting_on_tool');
      return held ? [{ taskId, workerId }] : [];
    });
  }

  async forget(workers: Iterable<string>): Promise<void> {
    const ids = [...workers];
    for (const id of ids) this.missingSince.delete(id);
    if (ids.length > 0) await this.redis.hdel(this.keys.workerRegistry(), ...ids);
  }
}
