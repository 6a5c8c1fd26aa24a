import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import Redlock, { ExecutionError, ResourceLockedError } from 'redlock';
import { REDIS_CONFIG, type RedisConfig } from '@vigil/config';
import { createRedis, isOutOfMemory, REDIS, RedisKeys } from '@vigil/redis';
import { storeFullOf } from '@vigil/tasks';

/**
 * Redlock reports a failed acquisition as an ExecutionError whatever the cause: the lease is held
 * elsewhere only if every vote against it was a ResourceLockedError. Anything else (Redis down,
 * a script error) is not "another Watcher is on it" and must surface.
 */
async function votesAgainst(error: ExecutionError): Promise<Error[]> {
  const attempts = await Promise.all(error.attempts);
  return attempts.flatMap((attempt) => [...attempt.votesAgainst.values()]);
}

async function heldByAnother(error: unknown): Promise<boolean> {
  if (error instanceof ResourceLockedError) return true;
  if (!(error instanceof ExecutionError)) return false;
  const against = await votesAgainst(error);
  return against.length > 0 && against.every((reason) => reason instanceof ResourceLockedError);
}

/** A lease refused because Redis is full, as the StoreFullError the rest of Vigil knows it by. */
async function refusedByFullStore(error: unknown): Promise<Error | undefined> {
  if (!(error instanceof ExecutionError)) return undefined;
  return (await votesAgainst(error)).find(isOutOfMemory);
}

export interface Lease {
  owner: string;
  expiresAt: number;
}

/**
 * Redlock behind one small service. A lease only says who works on a task right now; it is no
 * fencing token (a paused holder can outlive it): the task's attempt, checked in Lua, is.
 *
 * Where the votes are: the independent nodes of REDLOCK_URLS when set; otherwise the shared
 * connection, which on a Redis Cluster is one vote on the master of the lease key's slot. That is
 * not Redlock's independent-node setup (a failover can lose a lease the replica never saw), and it
 * need not be: a second holder can only repeat a decision the attempt fence then refuses
 * (docs/operations.md, "Past one machine").
 */
@Injectable()
export class LeaseService implements OnModuleDestroy {
  private readonly logger = new Logger(LeaseService.name);
  private readonly redlock: Redlock;
  private readonly extraClients: Redis[] = [];
  private readonly held = new Set<Promise<unknown>>();

  constructor(
    @Inject(REDIS) redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(REDIS_CONFIG) config: Pick<RedisConfig, 'redlockUrls'>,
  ) {
    this.extraClients = config.redlockUrls.map((url, i) =>
      createRedis(url, `vigil-redlock-${i}:${process.pid}`),
    );
    const clients = this.extraClients.length > 0 ? this.extraClients : [redis];
    // No retries: a held lease means another Watcher is on it, and this one moves on.
    this.redlock = new Redlock(clients, { retryCount: 0, driftFactor: 0.01 });
    this.redlock.on('error', (error: unknown) => {
      if (!(error instanceof ResourceLockedError)) this.logger.warn(`redlock: ${String(error)}`);
    });
  }

  /** Runs fn under the task's recovery lease, or returns undefined at once if another holder has it. */
  withLease<T>(
    taskId: string,
    ttlMs: number,
    owner: string,
    fn: (lease: Lease) => Promise<T>,
  ): Promise<T | undefined> {
    return this.hold(this.keys.recoveryLease(taskId), ttlMs, owner, fn);
  }

  /** Runs fn under the lease of a shard's retention sweep, or returns undefined if another Watcher has it. */
  withRetentionLease<T>(
    shard: number,
    ttlMs: number,
    owner: string,
    fn: (lease: Lease) => Promise<T>,
  ): Promise<T | undefined> {
    return this.hold(this.keys.retentionLease(shard), ttlMs, owner, fn);
  }

  private async hold<T>(
    resource: string,
    ttlMs: number,
    owner: string,
    fn: (lease: Lease) => Promise<T>,
  ): Promise<T | undefined> {
    let lock;
    try {
      lock = await this.redlock.acquire([resource], ttlMs);
    } catch (error) {
      if (await heldByAnother(error)) return undefined;
      const full = await refusedByFullStore(error);
      throw full ? storeFullOf(full) : error;
    }
    const work = fn({ owner, expiresAt: lock.expiration });
    this.held.add(work);
    try {
      return await work;
    } finally {
      this.held.delete(work);
      await lock
        .release()
        .catch((error: unknown) => this.logger.warn(`releasing lease ${resource}: ${String(error)}`));
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.held]);
    await Promise.all(this.extraClients.map((client) => client.quit().catch(() => client.disconnect())));
  }
}
