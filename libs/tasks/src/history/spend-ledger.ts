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

/** The spend counter shared by every Worker, changed only atomically against its limit. */
@Injectable()
export class SpendLedger {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: TaskScripts = new TaskScripts(redis),
  ) {}

  /** Adds `amountUsd` if the total stays within `limitUsd` (undefined: no limit); a negative amount releases. */
  async reserveGlobal(amountUsd: number, limitUsd?: number): Promise<{ granted: boolean; totalUsd: number }> {
    const [code, total] = await this.scripts.run<[number, string]>(
      'reserve-global-spend',
      [this.keys.spend()],
      [amountUsd.toFixed(6), limitUsd === undefined ? '' : String(limitUsd)],
    );
    return { granted: code === ScriptCode.Applied, totalUsd: Number(total) };
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
