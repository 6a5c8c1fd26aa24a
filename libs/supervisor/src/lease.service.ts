import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import Redlock, { ResourceLockedError } from 'redlock';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { REDIS } from '@vigil/redis';

export interface Lease {
  owner: string;
  expiresAt: number;
}

/**
 * Redlock behind one small service. A lease only says who works on a task right now; it is no
 * fencing token (a paused holder can outlive it): the task's attempt, checked in Lua, is.
 */
@Injectable()
export class LeaseService implements OnModuleDestroy {
  private readonly logger = new Logger(LeaseService.name);
  private readonly redlock: Redlock;
  private readonly extraClients: Redis[] = [];
  private readonly held = new Set<Promise<unknown>>();

  constructor(
    @Inject(REDIS) redis: Redis,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
  ) {
    this.extraClients = config.redlockUrls.map((url) => new Redis(url, { maxRetriesPerRequest: null }));
    const clients = this.extraClients.length > 0 ? this.extraClients : [redis];
    // No retries: a held lease means another Watcher is on it, and this one moves on.
    this.redlock = new Redlock(clients, { retryCount: 0, driftFactor: 0.01 });
    this.redlock.on('error', (error: unknown) => {
      if (!(error instanceof ResourceLockedError)) this.logger.warn(`redlock: ${String(error)}`);
    });
  }

  resource(taskId: string): string {
    return `${this.config.keyPrefix}:recovery:{${taskId}}`;
  }

  /** Runs fn under the lease, or returns undefined at once if another holder has it. */
  async withLease<T>(
    taskId: string,
    ttlMs: number,
    owner: string,
    fn: (lease: Lease) => Promise<T>,
  ): Promise<T | undefined> {
    let lock;
    try {
      lock = await this.redlock.acquire([this.resource(taskId)], ttlMs);
    } catch (error) {
      if (error instanceof ResourceLockedError || String(error).includes('quorum')) return undefined;
      throw error;
    }
    const work = fn({ owner, expiresAt: lock.expiration });
    this.held.add(work);
    try {
      return await work;
    } finally {
      this.held.delete(work);
      await lock
        .release()
        .catch((error: unknown) => this.logger.warn(`releasing lease of ${taskId}: ${String(error)}`));
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.held]);
    await Promise.all(this.extraClients.map((client) => client.quit().catch(() => client.disconnect())));
  }
}
