import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';

/**
 * Finds Worker processes that are provably gone: registered, but their named Redis connection is
 * no longer connected (the kernel closes a killed process's sockets). A frozen process keeps its
 * connection and is left to the heartbeat deadline.
 */
@Injectable()
export class DeadWorkerDetector {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async find(): Promise<Set<string>> {
    const registered = await this.redis.hkeys(this.keys.workerRegistry());
    if (registered.length === 0) return new Set();
    const clients = (await this.redis.call('CLIENT', 'LIST', 'TYPE', 'normal')) as string;
    const live = new Set<string>();
    for (const line of clients.split('\n')) {
      const name = /(?:^| )name=(\S*)/.exec(line)?.[1];
      const workerId = name === undefined ? null : this.keys.workerIdOfClient(name);
      if (workerId !== null) live.add(workerId);
    }
    return new Set(registered.filter((id) => !live.has(id)));
  }

  /** Active tasks of one shard last claimed by one of these workers, with the worker of each. */
  async tasksOf(shard: number, workers: Set<string>): Promise<{ taskId: string; workerId: string }[]> {
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

  async forget(workers: Set<string>): Promise<void> {
    if (workers.size > 0) await this.redis.hdel(this.keys.workerRegistry(), ...workers);
  }
}
