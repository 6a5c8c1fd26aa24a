import type { VigilConfig } from './config';

/** Who actually answers for a model name of the policy. */
export type ProviderName = 'anthropic' | 'google' | 'scripted';

/**
 * `opus` runs on Anthropic when ANTHROPIC_API_KEY is set, `gemini` on Google when GEMINI_API_KEY
 * is set; without the key the name runs on the offline scripted agent, and the record says so.
 */
export function providerOf(
  model: string,
  config: Pick<VigilConfig, 'anthropicApiKey' | 'geminiApiKey'>,
): ProviderName {
  if (model === 'opus' && config.anthropicApiKey) return 'anthropic';
  if (model === 'gemini' && config.geminiApiKey) return 'google';
  return 'scripted';
}

/** Every policy name with the provider it runs on: said at boot and by /version. */
export function providersInUse(
  config: Pick<VigilConfig, 'firstModel' | 'retryPolicy' | 'anthropicApiKey' | 'geminiApiKey'>,
): Record<string, ProviderName> {
  const names = new Set([config.firstModel, ...config.retryPolicy, 'opus', 'gemini']);
  return Object.fromEntries([...names].map((model) => [model, providerOf(model, config)]));
}
