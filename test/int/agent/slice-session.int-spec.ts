import { newNoopTask, RedisTestContext, SliceSessionHarness, TestModel } from '@vigil/testing';
import { SpendLedger } from '@vigil/tasks';
import {
  estimateCostUsd,
  type GenerateRequest,
  type GenerateResult,
  MAX_OUTPUT_TOKENS,
  promptTokenBound,
} from '@vigil/agent';

/**
 * A model that always asks for the next noop step and bills honestly: input as many tokens as a
 * quarter of the prompt's bytes, output as much as it may (2,000, or max_tokens if lower).
 */
class ExpensiveModel extends TestModel {
  readonly maxTokens: number[] = [];
  readonly costs: number[] = [];
  protected async reply(request: GenerateRequest, index: number): Promise<GenerateResult> {
    if (!request.system.includes('never repeat a step')) throw new Error('the prompt lost its rules');
    this.maxTokens.push(request.maxTokens ?? MAX_OUTPUT_TOKENS);
    const usage = {
      inputTokens: Math.ceil(promptTokenBound(request) / 4),
      outputTokens: Math.min(2_000, request.maxTokens ?? MAX_OUTPUT_TOKENS),
    };
    this.costs.push(estimateCostUsd(this, usage));
    return { text: '', toolCalls: [{ id: `c${index}`, name: 'noop_step', args: { index } }], usage };
  }
}

describe('SliceSession budgets', () => {
  const ctx = new RedisTestContext('slice-session', { GLOBAL_SPEND_LIMIT_USD: '100', SLICE_MAX_STEPS: '50' });
  const sessions = new SliceSessionHarness(ctx);
  const { tasks } = sessions;
  afterAll(() => ctx.close());

  it('pauses before the call that would overspend, lowering max_tokens first; every call charged to the task and the gateway', async () => {
    const task = await sessions.runningTask(
      'budget-1',
      newNoopTask({ input: { steps: 40 }, budgetUsd: 1, totalUnits: 40 }),
    );
    const model = new ExpensiveModel();
    const session = sessions.session({
      task,
      context: await sessions.contexts.load(task.id),
      contextVersion: 0,
      writer: 'budget-run',
      provider: model,
    });
    const result = await session.run();
    expect(result).toMatchObject({ end: 'paused', pauseReason: 'budget' });
    expect(result.detail).toMatch(/budget of \$1 is nearly spent/);
    // About $0.17 a call at Opus prices: five full calls, then smaller ones, then the pause.
    expect(model.calls).toBeGreaterThanOrEqual(5);
    expect(model.maxTokens[0]).toBe(MAX_OUTPUT_TOKENS);
    expect(Math.min(...model.maxTokens)).toBeLessThan(MAX_OUTPUT_TOKENS);
    expect(Math.min(...model.maxTokens)).toBeGreaterThanOrEqual(1024);
    const stored = (await tasks.get(task.id))!;
    const billed = model.costs.reduce((sum, cost) => sum + cost, 0);
    expect(stored.spentUsd).toBeCloseTo(billed, 5);
    expect(stored.spentUsd).toBeLessThanOrEqual(stored.budgetUsd);
    expect(stored.completedUnits).toBe(model.calls);
    expect(Number(await ctx.redis.hget(ctx.keys.task(task.id), 'reservedUsd'))).toBeCloseTo(0, 6);
    expect(Number(await ctx.redis.get(ctx.keys.spend()))).toBeCloseTo(billed, 5);
  });

  it('never lets concurrent reservations on one task pass its budget', async () => {
    const task = await sessions.runningTask('budget-2', newNoopTask({ budgetUsd: 1 }));
    const connections = Array.from({ length: 10 }, () => ctx.redis.duplicate());
    try {
      const grants = await Promise.all(
        connections.flatMap((connection) =>
          Array.from({ length: 5 }, () =>
            new SpendLedger(connection, ctx.keys).reserveTask(task.id, 1, 0.07, 0.05),
          ),
        ),
      );
      const granted = grants.flatMap((grant) => ('grantedUsd' in grant ? [grant.grantedUsd] : []));
      const total = granted.reduce((sum, value) => sum + value, 0);
      expect(total).toBeLessThanOrEqual(1 + 1e-9);
      // 14 full grants of $0.07 fit in $1, then one of the $0.02 left is below the floor: refused.
      expect(granted.filter((value) => value === 0.07)).toHaveLength(14);
      expect(grants.filter((grant) => 'refused' in grant)).toHaveLength(36);
      expect(Number(await ctx.redis.hget(ctx.keys.task(task.id), 'reservedUsd'))).toBeCloseTo(total, 6);
    } finally {
      await Promise.all(connections.map((connection) => connection.quit()));
    }
  });
});
