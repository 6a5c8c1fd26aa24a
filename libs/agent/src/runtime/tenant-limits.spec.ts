import { TenantDailyBudgetError } from './global-spend.gate';
import { moneyPauseOf } from './paid-model-call';

describe('a tenant’s daily budget refusing a task’s call', () => {
  it('pauses the task with reason tenant_daily_budget, saying which day and budget', () => {
    const pause = moneyPauseOf(new TenantDailyBudgetError('acme', 5, 4.9, '2026-12-02'));
    expect(pause).toEqual({
      end: 'paused',
      pauseReason: 'tenant_daily_budget',
      detail:
        'the daily budget of $5 of tenant acme is reached for 2026-12-02 (UTC): $4.9000 spent or reserved',
    });
  });
});
