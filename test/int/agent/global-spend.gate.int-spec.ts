import { RedisTestContext } from '@vigil/testing';
import { GlobalSpendGate, GlobalSpendLimitError, TenantDailyBudgetError } from '@vigil/agent';
import type { ToolCatalog } from '@vigil/config';
import { SpendLedger, utcDay } from '@vigil/tasks';

/** A catalog naming only tenant limits: `capped` may spend $1 a day. */
function catalogWith(tenants: ToolCatalog['tenants']): { toolCatalog: ToolCatalog } {
  return { toolCatalog: { path: 'tools.json', mcpServers: {}, httpTools: {}, tenants, variables: [] } };
}

describe('GlobalSpendGate', () => {
  const ctx = new RedisTestContext('spend', { GLOBAL_SPEND_LIMIT_USD: '1' });
  const gate = new GlobalSpendGate(new SpendLedger(ctx.redis, ctx.keys), ctx.config);
  afterAll(() => ctx.close());

  it('reserves under the limit, refuses over it like a non-retryable 429, and settles to the real cost', async () => {
    const hold = await gate.reserve(0.6, 'acme');
    await expect(gate.reserve(0.5, 'acme')).rejects.toMatchObject({ status: 429, retryable: false });
    await expect(gate.reserve(0.5, 'acme')).rejects.toBeInstanceOf(GlobalSpendLimitError);
    await gate.settle(hold, 0.6, 0.1);
    expect(await gate.spentUsd()).toBeCloseTo(0.1, 6);
    await gate.reserve(0.5, 'acme');
    expect(await gate.spentUsd()).toBeCloseTo(0.6, 6);
  });

  it('holds the limit when many workers reserve at once', async () => {
    await ctx.redis.del(ctx.keys.spend());
    const connections = Array.from({ length: 10 }, () => ctx.redis.duplicate());
    try {
      const gates = connections.map((c) => new GlobalSpendGate(new SpendLedger(c, ctx.keys), ctx.config));
      const results = await Promise.allSettled(
        gates.flatMap((g) => Array.from({ length: 10 }, () => g.reserve(0.03, 'acme'))),
      );
      const granted = results.filter((r) => r.status === 'fulfilled').length;
      expect(granted).toBe(33);
      expect(await gate.spentUsd()).toBeLessThanOrEqual(1);
    } finally {
      await Promise.all(connections.map((c) => c.quit()));
    }
  });

  it('makes no Redis call at all when neither a global limit nor a tenant budget is set', async () => {
    const unlimited = new RedisTestContext('spend-unlimited', { GLOBAL_SPEND_LIMIT_USD: '' });
    try {
      const ledger = new SpendLedger(unlimited.redis, unlimited.keys);
      const run = jest.spyOn(ledger, 'reserveShared');
      const free = new GlobalSpendGate(
        ledger,
        unlimited.config,
        catalogWith({ other: { allow: [], dailyBudgetUsd: 1 } }),
      );
      const hold = await free.reserve(5, 'acme');
      await free.settle(hold, 5, 0.25);
      expect(run).not.toHaveBeenCalled();
      expect(await unlimited.redis.exists(unlimited.keys.spend())).toBe(0);
    } finally {
      await unlimited.close();
    }
  });
});

describe('GlobalSpendGate: a tenant’s daily budget', () => {
  const ctx = new RedisTestContext('tenant-spend', { GLOBAL_SPEND_LIMIT_USD: '' });
  const catalog = catalogWith({
    capped: { allow: [], dailyBudgetUsd: 1 },
    other: { allow: [], dailyBudgetUsd: 50 },
  });
  const ledger = new SpendLedger(ctx.redis, ctx.keys);
  const gate = new GlobalSpendGate(ledger, ctx.config, catalog);
  const now = Date.UTC(2026, 11, 2, 23, 59, 0);
  afterAll(() => ctx.close());

  it('never lets concurrent reservations of many workers pass the tenant’s budget', async () => {
    const connections = Array.from({ length: 10 }, () => ctx.redis.duplicate());
    try {
      const gates = connections.map(
        (c) => new GlobalSpendGate(new SpendLedger(c, ctx.keys), ctx.config, catalog),
      );
      const results = await Promise.allSettled(
        gates.flatMap((g) => Array.from({ length: 10 }, () => g.reserve(0.07, 'capped', now))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(14);
      const refusals = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refusals).toHaveLength(86);
      for (const refusal of refusals) expect(refusal.reason).toBeInstanceOf(TenantDailyBudgetError);
      expect(await ledger.tenantSpentUsd('capped', utcDay(now))).toBeLessThanOrEqual(1);
      // The global counter holds exactly what the tenants hold: refused calls added nothing.
      expect(await ledger.globalSpentUsd()).toBeCloseTo(0.98, 6);
    } finally {
      await Promise.all(connections.map((c) => c.quit()));
    }
  });

  it('keeps other tenants paying, counts each tenant on its own UTC day, and expires the day', async () => {
    await expect(gate.reserve(0.5, 'capped', now)).rejects.toThrow(/daily budget of \$1 of tenant capped/);
    await gate.reserve(0.5, 'other', now);
    expect(await ledger.tenantSpentUsd('other', '2026-12-02')).toBeCloseTo(0.5, 6);
    // Past midnight UTC the capped tenant starts a new day.
    const tomorrow = now + 2 * 60_000;
    const hold = await gate.reserve(0.5, 'capped', tomorrow);
    expect(hold).toEqual({ tenantId: 'capped', day: '2026-12-03' });
    const ttl = await ctx.redis.ttl(ctx.keys.tenantDaySpend('capped', '2026-12-03'));
    expect(ttl).toBeGreaterThan(86_400);
    expect(ttl).toBeLessThanOrEqual(2 * 86_400);
  });

  it('settles a reservation to its real cost on the day it was made', async () => {
    const hold = await gate.reserve(0.3, 'other', now);
    await gate.settle(hold, 0.3, 0.05);
    expect(await ledger.tenantSpentUsd('other', '2026-12-02')).toBeCloseTo(0.55, 6);
  });
});
