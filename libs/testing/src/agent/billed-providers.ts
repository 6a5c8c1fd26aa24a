import { AnthropicProvider, createAnthropicClient, createGeminiClient, GeminiProvider } from '@vigil/agent';
import { ANTHROPIC_MODEL, GEMINI_MODEL } from './prompt-run';

/** The runtime's Anthropic provider on the real SDK (no retries) against a billing fake at `baseUrl`. */
export function anthropicOnFake(
  apiKey: string,
  baseUrl: string,
  options: { promptCaching?: boolean } = {},
): AnthropicProvider {
  const settings = { anthropicApiKey: apiKey, anthropicBaseUrl: baseUrl, anthropicModel: ANTHROPIC_MODEL };
  return new AnthropicProvider(settings, {
    client: createAnthropicClient(settings, { maxRetries: 0 }),
    ...options,
  });
}

/** The runtime's Gemini provider on the real SDK (one attempt) against a billing fake at `baseUrl`. */
export function geminiOnFake(apiKey: string, baseUrl: string): GeminiProvider {
  const settings = { geminiApiKey: apiKey, geminiBaseUrl: baseUrl, geminiModel: GEMINI_MODEL };
  return new GeminiProvider(settings, {
    // Jest's sandbox: the SDK's fetch must come from the test's realm.
    client: createGeminiClient(settings, { attempts: 1, fetch: (url, init) => fetch(url, init) }),
  });
}
