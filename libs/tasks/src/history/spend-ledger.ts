import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode, scriptRefusal } from '../scripts/script-codes';
import type { TaskStatus } from '../task-status';
import { TaskScripts } from '../scripts/task-scripts';

/** Rounded up to the micro-dollar the ledger keeps: a reservation never undershoots its call. */
function microUsdUp(usd: number): string {
  return ((Math.sign(usd) * Math.ceil(Math.abs(usd) * 1e6 - 1e-9)) / 1e6).toFixed(6);
}

/** A tenant's counter lives two days: today's, and yesterday's while its last calls settle. */
const TENANT_DAY_TTL_SECONDS = 2 * 86_400;

/** The UTC day (`YYYY-MM-DD`) a tenant's daily budget counts in. */
export function utcDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/** Whose day a shared reservation counts in, and the limits it must fit under. */
export interface SharedSpendLimits {
  tenantId: string;
  /** The UTC day of the reservation; its settlement goes to the same day. */
  day: string;
  globalLimitUsd?: number;
  tenantDailyBudgetUsd?: number;
}

export interface SharedSpendReply {
  granted: boolean;
  /** Which limit refused it. */
  refusedBy?: 'global' | 'tenant';
  totalUsd: number;
  tenantTotalUsd: number;
}

/** The spend counters shared by every Worker and API replica, changed only atomically against their limits. */
@Injectable()
export class SpendLedger {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  /**
   * Adds `amountUsd` to the global counter and the tenant's counter of the day if both stay within
   * their limits (undefined: no limit); a negative amount releases from both.
   */
  async reserveShared(amountUsd: number, limits: SharedSpendLimits): Promise<SharedSpendReply> {
    const [code, total, tenantTotal, refusedBy] = await this.scripts.run<[number, string, string, string]>(
      'reserve-global-spend',
      [this.keys.spend(), this.keys.tenantDaySpend(limits.tenantId, limits.day)],
      [
        amountUsd.toFixed(6),
        limits.globalLimitUsd === undefined ? '' : String(limits.globalLimitUsd),
        limits.tenantDailyBudgetUsd === undefined ? '' : String(limits.tenantDailyBudgetUsd),
        TENANT_DAY_TTL_SECONDS,
      ],
    );
    return {
      granted: code === ScriptCode.Applied,
      ...(refusedBy === 'global' || refusedBy === 'tenant' ? { refusedBy } : {}),
      totalUsd: Number(total),
      tenantTotalUsd: Number(tenantTotal),
    };
  }

  /** What the tenant's model calls spent (or hold reserved) on this UTC day. */
  async tenantSpentUsd(tenantId: string, day: string): Promise<number> {
    return Number((await this.redis.get(this.keys.tenantDaySpend(tenantId, day))) ?? 0);
  }

  /**
   * Reserves a model call's worst case against the task's budget, or at least `floorUsd` of it
   * (the call then lowers its max_tokens to fit); refused when not even the floor fits.
   */
  async reserveTask(
    taskId: string,
    attempt: number,
    worstUsd: number,
    floorUsd: number,
  ): Promise<{ grantedUsd: number } | { refused: true; remainingUsd: number }> {
    const [code, status, stored, granted, remaining] = await this.scripts.run<
      [number, string, number, string, string]
    >('reserve-task-spend', [this.keys.task(taskId)], [attempt, microUsdUp(worstUsd), microUsdUp(floorUsd)]);
    if (code === ScriptCode.Applied) return { grantedUsd: Number(granted) };
    if (code === ScriptCode.NotAllowed) return { refused: true, remainingUsd: Number(remaining) };
    throw scriptRefusal(code, taskId, {
      status: status as TaskStatus,
      storedAttempt: stored,
      writerAttempt: attempt,
    });
  }

  /** Gives back a grant whose call was never made (the global limit refused it). */
  async releaseTask(taskId: string, attempt: number, grantedUsd: number): Promise<void> {
    await this.reserveTask(taskId, attempt, -grantedUsd, 0);
  }

  async globalSpentUsd(): Promise<number> {
    return Number((await this.redis.get(this.keys.spend())) ?? 0);
  }
}
