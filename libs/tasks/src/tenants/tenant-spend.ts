import { Inject, Injectable } from '@nestjs/common';
import { tenantLimitsOf, TOOLS_CONFIG, type ToolsConfig } from '@vigil/config';
import { SpendLedger, utcDay } from '../history/spend-ledger';
import { DomainError } from '../task-errors';

/** What a tenant's model calls spent on one UTC day, against its daily budget. */
export interface TenantDaySpend {
  tenantId: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  spentUsd: number;
  /** The catalog's `tenants.<id>.dailyBudgetUsd`; absent: no daily budget. */
  dailyBudgetUsd?: number;
  /** Whether the day's budget is used up (within a micro-dollar): no call of the tenant fits today. */
  exhausted: boolean;
}

/** When this process read the catalog: a raised daily budget reaches it by a restart. */
const CATALOG_READ_AT = Date.now();

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

  /**
   * Whether a task paused by its tenant's daily budget at `pausedAt` may resume: on a later UTC day,
   * or once the budget was raised (the catalog read again after the pause), or when it has no budget
   * any more. Otherwise the day's budget that refused its call is still the one in force. (A resumed
   * task whose next call still does not fit pauses again before the call, spending nothing.)
   */
  async refusesResume(tenantId: string, pausedAt: number, now = Date.now()): Promise<TenantDaySpend | null> {
    const spend = await this.today(tenantId, now);
    if (spend.dailyBudgetUsd === undefined || utcDay(pausedAt) !== spend.day) return null;
    return CATALOG_READ_AT < pausedAt ? spend : null;
  }
}

/**
 * A task paused by its tenant's daily budget cannot resume while that day's budget is still spent:
 * a 409 that says when it can (tomorrow, UTC, or once the operator raises the budget).
 */
export class TenantBudgetSpentError extends DomainError {
  readonly kind = 'conflict';

  constructor(
    readonly taskId: string,
    readonly spend: TenantDaySpend,
  ) {
    super(
      `the daily budget of $${spend.dailyBudgetUsd ?? 0} of your account is spent for ${spend.day} (UTC, $${spend.spentUsd.toFixed(4)} used); ` +
        `task ${taskId} can be resumed tomorrow (UTC), or once the operator raises tenants.${spend.tenantId}.dailyBudgetUsd`,
    );
  }

  override details(): Record<string, unknown> {
    return { currentStatus: 'paused', statusReason: 'tenant_daily_budget' };
  }
}
