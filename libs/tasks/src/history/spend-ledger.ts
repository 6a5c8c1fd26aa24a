import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS, RedisKeys } from '@vigil/redis';
import { ScriptCode } from '../scripts/script-codes';
import { TaskScripts } from '../scripts/task-scripts';

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

  async globalSpentUsd(): Promise<number> {
    return Number((await this.redis.get(this.keys.spend())) ?? 0);
  }
}
