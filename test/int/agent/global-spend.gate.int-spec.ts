import { RedisTestContext } from '@vigil/testing';
import { GlobalSpendGate, GlobalSpendLimitError } from '@vigil/agent';
import { SpendLedger } from '@vigil/tasks';

describe('GlobalSpendGate', () => {
  const ctx = new RedisTestContext('spend', { GLOBAL_SPEND_LIMIT_USD: '1' });
  const gate = new GlobalSpendGate(new SpendLedger(ctx.redis, ctx.keys), ctx.config);
  afterAll(() => ctx.close());

  it('reserves under the limit, refuses over it like a non-retryable 429, and settles to the real cost', async () => {
    await gate.reserve(0.6);
    await expect(gate.reserve(0.5)).rejects.toMatchObject({ status: 429, retryable: false });
    await expect(gate.reserve(0.5)).rejects.toBeInstanceOf(GlobalSpendLimitError);
    await gate.settle(0.6, 0.1);
    expect(await gate.spentUsd()).toBeCloseTo(0.1, 6);
    await gate.reserve(0.5);
    expect(await gate.spentUsd()).toBeCloseTo(0.6, 6);
  });

  it('holds the limit when many workers reserve at once', async () => {
    await ctx.redis.del(ctx.keys.spend());
    const connections = Array.from({ length: 10 }, () => ctx.redis.duplicate());
    try {
      const gates = connections.map((c) => new GlobalSpendGate(new SpendLedger(c, ctx.keys), ctx.config));
      const results = await Promise.allSettled(
        gates.flatMap((g) => Array.from({ length: 10 }, () => g.reserve(0.03))),
      );
      const granted = results.filter((r) => r.status === 'fulfilled').length;
      expect(granted).toBe(33);
      expect(await gate.spentUsd()).toBeLessThanOrEqual(1);
    } finally {
      await Promise.all(connections.map((c) => c.quit()));
    }
  });

  it('makes no Redis call at all when no global limit is set', async () => {
    const unlimited = new RedisTestContext('spend-unlimited', { GLOBAL_SPEND_LIMIT_USD: '' });
    try {
      const ledger = new SpendLedger(unlimited.redis, unlimited.keys);
      const run = jest.spyOn(ledger, 'reserveGlobal');
      const free = new GlobalSpendGate(ledger, unlimited.config);
      await free.reserve(5);
      await free.settle(5, 0.25);
      expect(run).not.toHaveBeenCalled();
      expect(await unlimited.redis.exists(unlimited.keys.spend())).toBe(0);
    } finally {
      await unlimited.close();
    }
  });
});
