import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  LIMITS_CONFIG,
  type LimitsConfig,
  tenantLimitsOf,
  TOOLS_CONFIG,
  type ToolsConfig,
} from '@vigil/config';
import { SpendLedger, utcDay } from '@vigil/tasks';

/** The gateway limit was reached: like HTTP 429 from the gateway, and never retried. */
export class GlobalSpendLimitError extends Error {
  readonly retryable = false;
  readonly status = 429;
  constructor(limit: number, spent: number) {
    super(`global spend limit of $${limit} reached ($${spent.toFixed(4)} spent)`);
    this.name = 'GlobalSpendLimitError';
  }
}

/** The tenant's daily budget (catalog `tenants.<id>.dailyBudgetUsd`) cannot pay for the call today. */
export class TenantDailyBudgetError extends Error {
  readonly retryable = false;
  readonly status = 429;
  constructor(
    readonly tenantId: string,
    readonly budgetUsd: number,
    readonly spentUsd: number,
    readonly day: string,
  ) {
    super(
      `the daily budget of $${budgetUsd} of tenant ${tenantId} is reached for ${day} (UTC): $${spentUsd.toFixed(4)} spent or reserved`,
    );
    this.name = 'TenantDailyBudgetError';
  }
}

/** A reservation held against the shared limits: its settlement goes to the same tenant and day. */
export interface SharedHold {
  tenantId: string;
  day: string;
}

/**
 * Enforces GLOBAL_SPEND_LIMIT_USD and the tenant's daily budget atomically across every Worker and
 * API replica: reserve, call, settle (docs/operations.md, "Tenant limits"). Without either limit
 * there is nothing to enforce and no Redis call: a model step keeps to its round-trip budget.
 */
@Injectable()
export class GlobalSpendGate {
  constructor(
    private readonly ledger: SpendLedger,
    @Inject(LIMITS_CONFIG) private readonly config: Pick<LimitsConfig, 'globalSpendLimitUsd'>,
    @Optional() @Inject(TOOLS_CONFIG) private readonly tools?: Pick<ToolsConfig, 'toolCatalog'>,
  ) {}

  /** Reserves `amountUsd` for a call of `tenantId`; undefined when no limit applies (nothing held). */
  async reserve(amountUsd: number, tenantId = '', now = Date.now()): Promise<SharedHold | undefined> {
    const globalLimitUsd = this.config.globalSpendLimitUsd;
    const { dailyBudgetUsd } = tenantLimitsOf(this.tools?.toolCatalog, tenantId);
    if (globalLimitUsd === undefined && dailyBudgetUsd === undefined) return undefined;
    const hold = { tenantId, day: utcDay(now) };
    const reply = await this.ledger.reserveShared(amountUsd, {
      ...hold,
      ...(globalLimitUsd !== undefined ? { globalLimitUsd } : {}),
      ...(dailyBudgetUsd !== undefined ? { tenantDailyBudgetUsd: dailyBudgetUsd } : {}),
    });
    if (reply.refusedBy === 'tenant')
      throw new TenantDailyBudgetError(tenantId, dailyBudgetUsd ?? 0, reply.tenantTotalUsd, hold.day);
    if (!reply.granted) throw new GlobalSpendLimitError(globalLimitUsd ?? 0, reply.totalUsd);
    return hold;
  }

  /** Returns the unused part of a reservation (or charges the excess). */
  async settle(hold: SharedHold | undefined, reservedUsd: number, actualUsd: number): Promise<void> {
    const delta = actualUsd - reservedUsd;
    if (hold === undefined || Math.abs(delta) < 1e-9) return;
    await this.ledger.reserveShared(delta, hold);
  }

  spentUsd(): Promise<number> {
    return this.ledger.globalSpentUsd();
  }
}
