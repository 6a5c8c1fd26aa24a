import { Inject, Injectable } from '@nestjs/common';
import { LIMITS_CONFIG, type LimitsConfig } from '@vigil/config';
import { SpendLedger } from '@vigil/tasks';

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
    private readonly ledger: SpendLedger,
    @Inject(LIMITS_CONFIG) private readonly config: Pick<LimitsConfig, 'globalSpendLimitUsd'>,
  ) {}

  async reserve(amountUsd: number): Promise<void> {
    const limit = this.config.globalSpendLimitUsd;
    if (limit === undefined) return;
    const { granted, totalUsd } = await this.ledger.reserveGlobal(amountUsd, limit);
    if (!granted) throw new GlobalSpendLimitError(limit, totalUsd);
  }

  /** Returns the unused part of a reservation (or charges the excess). */
  async settle(reservedUsd: number, actualUsd: number): Promise<void> {
    const delta = actualUsd - reservedUsd;
    if (this.config.globalSpendLimitUsd === undefined || Math.abs(delta) < 1e-9) return;
    await this.ledger.reserveGlobal(delta);
  }

  spentUsd(): Promise<number> {
    return this.ledger.globalSpentUsd();
  }
}
