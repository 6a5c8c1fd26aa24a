import type { ModelProvider, Usage } from './model-provider';

export interface Price {
  /** USD per million input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
}

/**
 * List prices by model id prefix, first match wins. Estimates: the gateway's own records are
 * authoritative. An unknown model is priced as the dearest, so a reservation never undershoots.
 */
const PRICES: [prefix: string, price: Price][] = [
  ['scripted', { input: 0, output: 0 }],
  ['claude-opus', { input: 15, output: 75 }],
  ['gemini', { input: 1.25, output: 10 }],
];
const DEAREST: Price = { input: 15, output: 75 };

export function priceOf(modelId: string): Price {
  return PRICES.find(([prefix]) => modelId.startsWith(prefix))?.[1] ?? DEAREST;
}

export function estimateCostUsd(provider: Pick<ModelProvider, 'modelId'>, usage: Usage): number {
  const price = priceOf(provider.modelId);
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

/** What one call may cost at most, reserved against the spend limits before it is made. */
export function worstCaseCallCostUsd(
  provider: Pick<ModelProvider, 'modelId'>,
  inputTokens: number,
  maxOutputTokens: number,
): number {
  return estimateCostUsd(provider, { inputTokens, outputTokens: maxOutputTokens });
}
