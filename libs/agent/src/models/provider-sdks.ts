import type * as AnthropicSdk from '@anthropic-ai/sdk';
import type * as GenAiSdk from '@google/genai';

/*
 * The model SDKs load at their first use, not when @vigil/agent is imported: together they are
 * about 330 modules and 0.4 s of CPU at every boot of an app that may never call one (the API
 * without a router model, a Worker on one provider, anything on the scripted provider). A boot's
 * CPU is what a restarted Worker spends before it takes its first slice.
 */

export function anthropicSdk(): typeof AnthropicSdk {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred load, see above
  return require('@anthropic-ai/sdk') as typeof AnthropicSdk;
}

export function genAiSdk(): typeof GenAiSdk {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred load, see above
  return require('@google/genai') as typeof GenAiSdk;
}
