import { RedisTestContext, newNoopTask } from '@vigil/testing';
import { StepRecorder, TaskContextStore, TaskRepository } from '@vigil/tasks';
import type { GenerateRequest, GenerateResult, ModelProvider } from '../models/model-provider';
import { modelSession } from './testing/model-session';

/** A model that always asks for the next noop step and reports a large token usage. */
class ExpensiveModel implements ModelProvider {
  readonly name = 'opus';
  readonly modelId = 'claude-test';
  calls = 0;
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const index = this.calls++;
    if (!request.system.includes('never repeat a step')) throw new Error('the prompt lost its rules');
    return {
      text: '',
      toolCalls: [{ id: `c${index}`, name: 'noop_step', args: { index } }],
      usage: { inputTokens: 20_000, outputTokens: 2_000 },
    };
  }
}

describe('SliceSession budgets', () => {
  const ctx = new RedisTestContext('slice-session', { GLOBAL_SPEND_LIMIT_USD: '100' });
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const recorder = new StepRecorder(ctx.redis, ctx.keys, ctx.config);
  afterAll(() => ctx.close());

  it('ends the turn with reason limit once the task budget is spent, charging each call to the task', async () => {
    const { task } = await tasks.create(
      'budget-1',
      newNoopTask({ input: { steps: 10 }, budgetUsd: 1, totalUnits: 10 }),
    );
    await tasks.transition(task, 'running', { attempt: 1 });
    const model = new ExpensiveModel();
    const session = modelSession(ctx, recorder, {
      task: (await tasks.get(task.id))!,
      context: await new TaskContextStore(ctx.redis, ctx.keys).load(task.id),
      contextVersion: 0,
      writer: 'budget-run',
      provider: model,
    });
    const result = await session.run();
    // Each call costs 20k × $15/M + 2k × $75/M = $0.45: the third would pass the $1 budget.
    expect(result).toMatchObject({ end: 'failed_turn', reason: 'limit' });
    expect(model.calls).toBe(3);
    const stored = (await tasks.get(task.id))!;
    expect(stored.spentUsd).toBeCloseTo(1.35, 6);
    expect(stored.completedUnits).toBe(3);
    expect(Number(await ctx.redis.get(ctx.keys.spend()))).toBeCloseTo(1.35, 6);
  });
});
