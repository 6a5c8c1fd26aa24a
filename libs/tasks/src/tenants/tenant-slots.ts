import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';

/** A claim on one of a tenant's running places: the place is the task's, or the task queues for one. */
export type SlotClaim =
  { granted: true; running: number } | { granted: false; running: number; firstWait: boolean };

/** A slice job parked for a place, due again now that one is free. */
export interface ParkedSlice {
  taskId: string;
  jobId: string;
}

export interface SlotLease {
  /** How long a place stays the task's without a new claim or renewal (a dead Worker's lapses). */
  leaseMs: number;
  /** How long a queued task may go without asking before it loses its turn. */
  staleMs: number;
}

/**
 * A tenant's running places (the catalog's `tenants.<id>.maxRunning`, docs/operations.md, "Tenant
 * limits"), shared by every Worker: claim-tenant-slot.lua and release-tenant-slot.lua.
 */
@Injectable()
export class TenantSlots {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  /** Takes (or keeps, renewing its lease) a place for the task, or queues it in first-asked order. */
  async claim(
    tenantId: string,
    slice: ParkedSlice,
    maxRunning: number,
    lease: SlotLease,
    now = Date.now(),
  ): Promise<SlotClaim> {
    const slots = this.keys.tenantSlots(tenantId);
    const [code, running, firstWait] = await this.scripts.run<[number, number, number]>(
      'claim-tenant-slot',
      [slots.running, slots.waiting, slots.asks],
      [slice.taskId, slice.jobId, now, lease.leaseMs, maxRunning, lease.staleMs],
    );
    return code === ScriptCode.Applied
      ? { granted: true, running }
      : { granted: false, running, firstWait: firstWait === 1 };
  }

  /** Gives the task's place back; answers the parked slices that may take the places now free. */
  async release(
    tenantId: string,
    taskId: string,
    maxRunning: number,
    now = Date.now(),
  ): Promise<ParkedSlice[]> {
    const slots = this.keys.tenantSlots(tenantId);
    const [, flat] = await this.scripts.run<[number, string[]]>(
      'release-tenant-slot',
      [slots.running, slots.waiting, slots.asks],
      [taskId, now, maxRunning],
    );
    const parked: ParkedSlice[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) parked.push({ taskId: flat[i], jobId: flat[i + 1] });
    return parked;
  }

  /**
   * Extends a place the task still holds (never takes one: a lapsed place stays lapsed, and the
   * task claims again at its next slice).
   */
  async renew(tenantId: string, taskId: string, leaseMs: number, now = Date.now()): Promise<void> {
    await this.redis.zadd(this.keys.tenantSlots(tenantId).running, 'XX', now + leaseMs, taskId);
  }

  /** The tasks holding one of the tenant's places now (lapsed leases left out). */
  async running(tenantId: string, now = Date.now()): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.tenantSlots(tenantId).running, `(${now}`, '+inf');
  }

  /** How many of the tenant's tasks wait for a place. */
  async waiting(tenantId: string): Promise<number> {
    return this.redis.zcard(this.keys.tenantSlots(tenantId).waiting);
  }
}
