import { RedisTestContext } from '@vigil/testing';
import type { ToolCatalog } from '@vigil/config';
import { SpendLedger, TenantSpend, utcDay } from '@vigil/tasks';

describe('TenantSpend: a tenant’s day, and when its budget-paused tasks may resume', () => {
  const ctx = new RedisTestContext('tenant-spend-day');
  const ledger = new SpendLedger(ctx.redis, ctx.keys);
  const toolCatalog: ToolCatalog = {
    path: 'tools.json',
    mcpServers: {},
    httpTools: {},
    tenants: { capped: { allow: [], dailyBudgetUsd: 1 } },
    variables: [],
  };
  const spend = new TenantSpend(ledger, { toolCatalog });
  afterAll(() => ctx.close());

  it('reads the day’s spend against the budget', async () => {
    const now = Date.now();
    await ledger.reserveShared(0.4, { tenantId: 'capped', day: utcDay(now), tenantDailyBudgetUsd: 1 });
    expect(await spend.today('capped', now)).toEqual({
      tenantId: 'capped',
      day: utcDay(now),
      spentUsd: 0.4,
      dailyBudgetUsd: 1,
      exhausted: false,
    });
    await ledger.reserveShared(0.6, { tenantId: 'capped', day: utcDay(now), tenantDailyBudgetUsd: 1 });
    expect(await spend.today('capped', now)).toMatchObject({ spentUsd: 1, exhausted: true });
    expect(await spend.today('free', now)).toEqual({
      tenantId: 'free',
      day: utcDay(now),
      spentUsd: 0,
      exhausted: false,
    });
  });

  it('refuses a resume on the day that paused it under the same budget, allows it the next day or after a new catalog', async () => {
    const now = Date.now();
    expect(await spend.refusesResume('capped', now - 1, now)).toMatchObject({
      tenantId: 'capped',
      dailyBudgetUsd: 1,
    });
    // Paused yesterday (UTC): a new day, a new budget.
    expect(await spend.refusesResume('capped', now - 86_400_000, now)).toBeNull();
    // Paused today, before this process read its catalog (a raised budget is read at boot).
    const beforeBoot = Math.max(utcStartOf(now), Math.floor(performance.timeOrigin));
    expect(await spend.refusesResume('capped', beforeBoot, now)).toBeNull();
    // A tenant whose budget was removed.
    expect(await spend.refusesResume('free', now - 1, now)).toBeNull();
  });
});

function utcStartOf(now: number): number {
  return Date.parse(`${utcDay(now)}T00:00:00Z`);
}
