import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { REDIS, RedisKeys } from '@vigil/redis';
import { StepRecorder } from './step-recorder';

/** The gateway limit was reached: like HTTP 429 from the gateway, and never retried. */
export class GlobalSpendLimitError extends Error {
  readonly retryable = false;
  readonly status = 429;
  constructor(limit: number, spent: number) {
    super(`global spend limit of $${limit} reached ($${spent.toFixed(4)} spent)`);
    this.name = 'GlobalSpendLimitError';
  }
}

/**
 * Enforces GLOBAL_SPEND_LIMIT_USD atomically across every Worker: reserve, call, settle. Without a
 * limit there is nothing to enforce and no Redis call: a model step keeps to its round-trip budget.
 */
@Injectable()
export class GlobalSpendGate {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly recorder: StepRecorder,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
  ) {}

  async reserve(amountUsd: number): Promise<void> {
    const limit = this.config.globalSpendLimitUsd;
    if (limit === undefined) return;
    const [granted, total] = await this.recorder.scripts.run<[number, string]>(
      'reserve-global-spend',
      [this.keys.spend()],
      [amountUsd.toFixed(6), String(limit)],
    );
    if (granted !== 1) throw new GlobalSpendLimitError(limit ?? 0, Number(total));
  }

  /** Returns the unused part of a reservation (or charges the excess). */
  async settle(reservedUsd: number, actualUsd: number): Promise<void> {
    const delta = actualUsd - reservedUsd;
    if (this.config.globalSpendLimitUsd === undefined || Math.abs(delta) < 1e-9) return;
    await this.recorder.scripts.run('reserve-global-spend', [this.keys.spend()], [delta.toFixed(6), '']);
  }

  async spentUsd(): Promise<number> {
    return Number((await this.redis.get(this.keys.spend())) ?? 0);
  }
}
