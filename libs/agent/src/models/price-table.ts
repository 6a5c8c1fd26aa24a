import type { ModelProvider, Usage } from './model-provider';

export interface Price {
  /** USD per million uncached input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
  /** USD per million prompt tokens written to the prompt cache. */
  cacheWrite: number;
  /** USD per million prompt tokens read from the prompt cache. */
  cacheRead: number;
}

/**
 * List prices by model id prefix, first match wins. Estimates: the gateway's own records are
 * authoritative. An unknown model is priced as the dearest, so a reservation never undershoots.
 *
 * Where the figures come from (docs/models.md, "Prompts that stay bounded"):
 * - Claude Opus 4 / 4.1: $15 input, $75 output; prompt caching (5-minute cache) writes at 1.25×
 *   input ($18.75) and reads at 0.1× input ($1.50) — Anthropic's pricing and prompt-caching pages
 *   (docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
 * - Gemini 2.5 Pro, prompts up to 200k tokens: $1.25 input, $10 output; cached input (implicit
 *   caching) $0.125, a 90% discount; implicit caching charges no write and no storage, so a
 *   write is priced as plain input — Google's Gemini API pricing page (ai.google.dev/gemini-api/docs/pricing).
 */
const PRICES: [prefix: string, price: Price][] = [
  ['scripted', { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 }],
  ['claude-opus', { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 }],
  ['gemini', { input: 1.25, output: 10, cacheWrite: 1.25, cacheRead: 0.125 }],
];
const DEAREST: Price = { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 };

export function priceOf(modelId: string): Price {
  return PRICES.find(([prefix]) => modelId.startsWith(prefix))?.[1] ?? DEAREST;
}

/** What one call's usage costs at the model's rates, cache reads and writes at theirs. */
export function estimateCostUsd(provider: Pick<ModelProvider, 'modelId'>, usage: Usage): number {
  const price = priceOf(provider.modelId);
  return (
    (usage.inputTokens * price.input +
      (usage.cacheWriteTokens ?? 0) * price.cacheWrite +
      (usage.cacheReadTokens ?? 0) * price.cacheRead +
      usage.outputTokens * price.output) /
    1_000_000
  );
}

/**
 * The rates a reservation prices a call's worst case at: every prompt token at the dearest input
 * rate (a cache write costs more than plain input), so a reservation never undershoots the bill.
 * A raised rate is rounded up to whole dollars per million tokens ($18.75 → $19 for Opus): a
 * prompt's worst case then has at most six decimals, what the spend ledger keeps, so rounding does
 * not cut what is left for output. A model whose cache costs no more than input keeps its rate.
 */
export function worstCasePrice(price: Price): Price {
  const dearest = Math.max(price.input, price.cacheWrite, price.cacheRead);
  return dearest > price.input ? { ...price, input: Math.ceil(dearest) } : price;
}

/** What one call may cost at most, reserved against the spend limits before it is made. */
export function worstCaseCallCostUsd(
  provider: Pick<ModelProvider, 'modelId'>,
  inputTokens: number,
  maxOutputTokens: number,
): number {
  const price = worstCasePrice(priceOf(provider.modelId));
  return (inputTokens * price.input + maxOutputTokens * price.output) / 1_000_000;
}
