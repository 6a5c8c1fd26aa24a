import type { Usage } from './model-provider';

/** USD per million tokens. Estimates: the gateway's own records are authoritative. */
const PRICES: Record<string, { input: number; output: number }> = {
  opus: { input: 15, output: 75 },
  gemini: { input: 1.25, output: 10 },
  scripted: { input: 0, output: 0 },
};

export function estimateCostUsd(provider: string, usage: Usage): number {
  const price = PRICES[provider] ?? PRICES.opus;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

/** What one call may cost at most, reserved against the global limit before it is made. */
export function worstCaseCallCostUsd(provider: string, inputTokens: number, maxOutputTokens: number): number {
  return estimateCostUsd(provider, { inputTokens, outputTokens: maxOutputTokens });
}
