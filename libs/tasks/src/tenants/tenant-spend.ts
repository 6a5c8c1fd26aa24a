import { Inject, Injectable } from '@nestjs/common';
import { tenantLimitsOf, TOOLS_CONFIG, type ToolsConfig } from '@vigil/config';
import { SpendLedger, utcDay } from '../history/spend-ledger';

/** What a tenant's model calls spent on one UTC day, against its daily budget. */
export interface TenantDaySpend {
  tenantId: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  spentUsd: number;
  /** The catalog's `tenants.<id>.dailyBudgetUsd`; absent: no daily budget. */
  dailyBudgetUsd?: number;
  /** Whether the day's budget is used up: the tenant's money-paused tasks stay paused until tomorrow. */
  exhausted: boolean;
}

/**
 * A tenant's money of the day (docs/operations.md, "Tenant limits"): what its tasks, its router and
 * tools-loop calls spent, counted by reserve-global-spend.lua whenever a limit applies to them.
 */
@Injectable()
export class TenantSpend {
  constructor(
    private readonly ledger: SpendLedger,
    @Inject(TOOLS_CONFIG) private readonly tools: Pick<ToolsConfig, 'toolCatalog'>,
  ) {}

  async today(tenantId: string, now = Date.now()): Promise<TenantDaySpend> {
    const day = utcDay(now);
    const { dailyBudgetUsd } = tenantLimitsOf(this.tools.toolCatalog, tenantId);
    const spentUsd = await this.ledger.tenantSpentUsd(tenantId, day);
    return {
      tenantId,
      day,
      spentUsd,
      ...(dailyBudgetUsd !== undefined ? { dailyBudgetUsd } : {}),
      // Within a micro-dollar of the budget, not even the smallest call fits.
      exhausted: dailyBudgetUsd !== undefined && spentUsd >= dailyBudgetUsd - 1e-6,
    };
  }
}
