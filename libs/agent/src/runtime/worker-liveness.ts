import { hostname } from 'node:os';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS_CONFIG, type RedisConfig } from '@vigil/config';
import { createPresenceConnection, REDIS, RedisKeys } from '@vigil/redis';

/**
 * Makes this Worker process's life visible to the Watcher: it registers itself and holds one Redis
 * connection named after its id. A killed process's connection is closed by the kernel at once, so
 * its name vanishes from CLIENT LIST; a frozen (SIGSTOP) process keeps it and is found by staleness.
 * A Worker shutting down deregisters only after its slices are drained and handed on.
 */
@Injectable()
export class WorkerLiveness implements OnModuleInit, OnApplicationShutdown {
  private connection?: Redis;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(REDIS_CONFIG) private readonly config: Pick<RedisConfig, 'redisUrl' | 'redisClusterNodes'>,
    @Inject('WORKER_ID') readonly workerId: string,
  ) {}

  async onModuleInit(): Promise<void> {
    // On a Redis Cluster: a connection to every master (docs/operations.md, "Past one machine").
    this.connection = await createPresenceConnection(this.config, this.keys.workerClientName(this.workerId));
    await this.register();
    // After a reconnect (a blip, a Redis restart) a Watcher may have forgotten this worker.
    this.connection.on('ready', () => {
      this.register().catch(() => undefined);
    });
  }

  private async register(): Promise<void> {
    await this.redis.hset(
      this.keys.workerRegistry(),
      this.workerId,
      JSON.stringify({ pid: process.pid, host: hostname(), startedAt: Date.now() }),
    );
  }

  /** Last, after the drain: while slices finish, this Worker must still look alive to the Watcher. */
  async onApplicationShutdown(): Promise<void> {
    await this.redis.hdel(this.keys.workerRegistry(), this.workerId);
    await this.connection?.quit().catch(() => this.connection?.disconnect());
  }
}
