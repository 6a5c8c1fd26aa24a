import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { CLOCKS_CONFIG, type ClockConfig } from '@vigil/config';
import { clientNames, REDIS, RedisKeys, uptimeMs } from '@vigil/redis';

/** Workers presumed dead, each with the time it was first seen without its connection. */
export type GoneWorkers = Map<string, number>;

/**
 * Clients retry a lost connection with a growing back-off (ioredis: up to 2 s between tries), so
 * after a Redis restart every Worker is missing until its next try: no one is declared gone while
 * Redis has been up for less than this.
 */
export const RECONNECT_GRACE_MS = 5_000;

/**
 * Finds Worker processes that are provably gone: registered, but their named Redis connection is
 * no longer connected. The rule (docs/ARCHITECTURE.md, "Stalls, diagnosed"): the kernel closes a
 * killed process's sockets at once, and Redis drops the client as it reads the close; a stopped
 * (SIGSTOP) or busy process (a blocked event loop, a long GC pause, a loaded machine) keeps its
 * connection open however long it is silent, because nothing on the connection asks it to answer.
 * So the connection's presence is a liveness signal that needs no timer in the Worker and no TTL
 * that a slow Worker could miss; silence is left to the heartbeat deadline (`frozen`).
 *
 * A connection can also vanish for a moment without its process dying (a network blip: the client
 * reconnects within about 50 ms; a Redis restart: see RECONNECT_GRACE_MS). So a Worker counts as
 * gone only when two looks CONFIRM_MS apart both miss it, never while Redis itself has been up for
 * less than the grace, and the Supervisor still refuses to recover a task whose heartbeat is newer
 * than the disappearance.
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
    // Two looks apart at least, and half a second: ten times a blip's reconnect.
    this.confirmMs = Math.max(2 * config.livenessIntervalMs, Math.min(500, config.staleAfterMs / 4));
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
    // A Worker missing from this answer vanished before it came back: its last write is older than
    // now, not necessarily than the look's start (on a loaded machine the reply takes a while, and a
    // Worker killed meanwhile would otherwise seem to have written after it vanished).
    now = Math.max(now, Date.now());
    for (const id of [...this.missingSince.keys()])
      if (live.has(id) || !registered.includes(id)) this.missingSince.delete(id);
    for (const id of registered)
      if (!live.has(id) && !this.missingSince.has(id)) this.missingSince.set(id, now);
    const gone: GoneWorkers = new Map(
      [...this.missingSince].filter(([, since]) => now - since >= this.confirmMs),
    );
    if (gone.size > 0 && (await uptimeMs(this.redis)) < Math.max(this.confirmMs, RECONNECT_GRACE_MS))
      return new Map();
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
