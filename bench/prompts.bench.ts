import { campaignBuildDemoInput } from '@vigil/builtin-kinds/campaign-build/demo-input';
import { campaignBuildKind, campaignBuildPlan, noopKind } from '@vigil/builtin-kinds';
import { type TaskKind } from '@vigil/kinds';
import { startSandbox } from '@vigil/meta-sandbox';
// The in-process task driver is a test helper of libs/agent, not part of @vigil/agent's API.
import { runPromptTask, type PromptRunResult } from '@vigil/testing';
import type { Bench, BenchResults } from './lib/result';

type Provider = 'anthropic' | 'gemini';
type PromptStyle = 'bounded' | 'unbounded';
const PROVIDERS: Provider[] = ['anthropic', 'gemini'];
const MODEL: Record<Provider, string> = { anthropic: 'claude-opus-4-1', gemini: 'gemini-2.5-pro' };
/** Large enough that no run pauses: the figure is what a whole task costs. */
const NO_LIMIT_USD = 10_000;

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** Tokens per model call and per plan step, and dollars per task, of one measured run. */
function figures(run: PromptRunResult, steps: number) {
  const sum = (pick: (u: PromptRunResult['calls'][number]['usage']) => number) =>
    run.calls.reduce((total, call) => total + pick(call.usage), 0);
  const totals = {
    uncached: sum((u) => u.uncached),
    cacheRead: sum((u) => u.cacheRead),
    cacheWrite: sum((u) => u.cacheWrite),
    output: sum((u) => u.output),
    prompt: sum((u) => u.prompt),
  };
  const per = (divisor: number) =>
    Object.fromEntries(Object.entries(totals).map(([name, value]) => [name, round(value / divisor)]));
  return {
    end: run.end,
    calls: run.calls.length,
    slices: run.slices,
    usdPerTask: round(run.chargedUsd, 4),
    tokensPerCall: per(run.calls.length),
    tokensPerStep: per(steps),
    lastCallPromptTokens: run.calls.at(-1)?.usage.prompt ?? 0,
    maxReservedUsd: round(run.maxReservedUsd, 4),
  };
}

/**
 * What a task's prompts cost as it grows: noop tasks of 14, 140 and 1,400 steps and the 134-step
 * campaign build (its demo input, tools against an in-process Meta sandbox), each through the real
 * SliceSession, prompt builder, provider and SDK against a loopback fake that bills as the provider
 * documents, prompt caching included (libs/testing/src/providers/billing-fakes.ts; tokens ≈
 * ceil(chars / 4)). The fake model walks the kind's plan. `after` is the bounded prompt with cache
 * breakpoints; `before` renders the prompt as it was (every step and output listed, no trimming,
 * no breakpoints). `--quick` skips 1,400 steps.
 */
export const runPromptsBench: Bench = async ({ quick, log }) => {
  const sandbox = await startSandbox({ accessToken: 'sandbox-token' });
  const results: BenchResults = {};
  try {
    const sizes: Array<{ name: string; kind: TaskKind; input: unknown; steps: number }> = [
      ...[14, 140, ...(quick ? [] : [1_400])].map((steps) => ({
        name: `noop_${steps}`,
        kind: noopKind as TaskKind,
        input: { steps },
        steps,
      })),
      {
        name: 'campaign_build_134',
        kind: campaignBuildKind as TaskKind,
        input: campaignBuildDemoInput(),
        steps: campaignBuildPlan(campaignBuildDemoInput()).length,
      },
    ];
    const measure = async (
      provider: Provider,
      size: (typeof sizes)[number],
      style: PromptStyle,
      budgetUsd: number,
    ) => {
      sandbox.sandbox.reset();
      const run = await runPromptTask({
        provider,
        kind: size.kind,
        input: size.input,
        style,
        budgetUsd,
        env: { META_API_BASE_URL: sandbox.baseUrl },
      });
      return figures(run, size.steps);
    };
    const meanUncached: Record<string, number> = {};
    for (const provider of PROVIDERS) {
      for (const size of sizes) {
        log(`prompts: ${provider} ${size.name}`);
        const after = await measure(provider, size, 'bounded', NO_LIMIT_USD);
        const before = await measure(provider, size, 'unbounded', NO_LIMIT_USD);
        meanUncached[`${provider}.${size.name}`] = after.tokensPerCall.uncached;
        results[`prompts.${provider}.${size.name}`] = {
          value: after.usdPerTask,
          unit: 'USD/task',
          note: `${MODEL[provider]} list prices; before (unbounded prompt, no caching): $${before.usdPerTask}; tokens per step after/before in details`,
          details: { after, before },
        };
      }
      const big = quick ? 'noop_140' : 'noop_1400';
      const ratio = meanUncached[`${provider}.${big}`] / meanUncached[`${provider}.noop_14`];
      results[`prompts.${provider}.uncached_per_call_${big.slice(5)}_vs_14`] = {
        value: round(ratio, 3),
        unit: '×',
        target: '<= 1.3',
        note: `mean uncached input tokens per call, ${big.replace('_', ' ')} steps ÷ 14 steps (${meanUncached[`${provider}.${big}`]} ÷ ${meanUncached[`${provider}.noop_14`]})`,
      };
    }
    const campaign = sizes.at(-1)!;
    const withinBudget = await measure('anthropic', campaign, 'bounded', 3);
    results['prompts.campaign_build_opus_default_budget'] = {
      value: withinBudget.usdPerTask,
      unit: 'USD',
      target: '<= 3, completes',
      note: `134-step campaign build on Opus list prices with the default $3 budget: ended ${withinBudget.end} after ${withinBudget.calls} calls`,
      details: withinBudget,
    };
  } finally {
    await sandbox.close();
  }
  return results;
};
