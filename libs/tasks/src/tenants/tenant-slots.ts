import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { tenantLimitsOf, type ToolCatalog } from '@vigil/config';
import { REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';

/** A slice job parked for a place, due again now that one is free. */
export interface ParkedSlice {
  taskId: string;
  jobId: string;
}

/**
 * A claim on a running place: the place is the task's, or the task queues for one, held back by
 * its tenant's `maxRunning` (`max`) or by the fair share (`fair`: `wake` is the parked slice of
 * the tenant whose turn it is).
 */
export type SlotClaim =
  | { granted: true; running: number }
  | { granted: false; running: number; firstWait: boolean; reason: 'max' | 'fair'; wake: ParkedSlice[] };

export interface SlotLease {
  /** How long a place stays the task's without a new claim or renewal (a dead Worker's lapses). */
  leaseMs: number;
  /** How long a queued task may go without asking before it loses its turn. */
  staleMs: number;
}

/**
 * A place outlives its holder by what the Watcher allows a silent Worker: a dead one frees it. A
 * queued task asks again every TENANT_SLOT_RETRY_MS at the latest; two missed asks and its turn is gone.
 */
export function slotLease(settings: { staleAfterMs: number; tenantSlotRetryMs: number }): SlotLease {
  return {
    leaseMs: settings.staleAfterMs,
    staleMs: settings.staleAfterMs + 2 * settings.tenantSlotRetryMs,
  };
}

/** What a claim holds the tenant to: its own cap, its weight, and whether tenants share fairly. */
export interface SlotRules {
  maxRunning?: number;
  weight: number;
  fairShare: boolean;
}

/**
 * The rules a tenant's tasks take running places under: its `maxRunning` and `weight` from the
 * catalog and the fair share (TENANT_FAIR_SHARE); undefined when neither applies (no Redis call).
 */
export function slotRulesOf(
  catalog: ToolCatalog | undefined,
  tenantId: string,
  fairShare: boolean,
): SlotRules | undefined {
  const { maxRunning, weight } = tenantLimitsOf(catalog, tenantId);
  if (maxRunning === undefined && !fairShare) return undefined;
  return { ...(maxRunning !== undefined ? { maxRunning } : {}), weight: weight ?? 1, fairShare };
}

function parkedSlices(flat: readonly string[]): ParkedSlice[] {
  const parked: ParkedSlice[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) parked.push({ taskId: flat[i], jobId: flat[i + 1] });
  return parked;
}

/**
 * Running places (docs/operations.md, "Tenant limits"), shared by every Worker: a tenant's
 * `maxRunning` and the weighted fair share between tenants, in claim-tenant-slot.lua and
 * release-tenant-slot.lua.
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
    rules: SlotRules,
    lease: SlotLease,
    now = Date.now(),
  ): Promise<SlotClaim> {
    const slots = this.keys.tenantSlots(tenantId);
    const [code, running, firstWait, reason, wake] = await this.scripts.run<
      [number, number, number, 'max' | 'fair', string[]]
    >(
      'claim-tenant-slot',
      [slots.tenants, slots.running, slots.waiting, slots.asks],
      [
        slice.taskId,
        slice.jobId,
        now,
        lease.leaseMs,
        rules.maxRunning ?? 0,
        lease.staleMs,
        rules.weight,
        slots.base,
        tenantId,
        rules.fairShare ? 1 : 0,
      ],
    );
    return code === ScriptCode.Applied
      ? { granted: true, running }
      : { granted: false, running, firstWait: firstWait === 1, reason, wake: parkedSlices(wake) };
  }

  /** A new task joins its tenant's queue for a place before its first slice is picked up. */
  async enqueue(tenantId: string, slice: ParkedSlice, rules: SlotRules, now = Date.now()): Promise<void> {
    const slots = this.keys.tenantSlots(tenantId);
    await this.scripts.run(
      'queue-for-tenant-slot',
      [slots.tenants, slots.waiting, slots.asks],
      [slice.taskId, slice.jobId, now, rules.maxRunning ?? 0, rules.weight, tenantId],
    );
  }

  /**
   * Gives the task's place back and takes it out of its tenant's queue; answers the parked slices
   * whose turn it is now.
   */
  async release(tenantId: string, taskId: string, staleMs: number, now = Date.now()): Promise<ParkedSlice[]> {
    const slots = this.keys.tenantSlots(tenantId);
    const [, flat] = await this.scripts.run<[number, string[]]>(
      'release-tenant-slot',
      [slots.tenants, slots.running, slots.waiting, slots.asks],
      [taskId, now, slots.base, tenantId, staleMs],
    );
    return parkedSlices(flat);
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
