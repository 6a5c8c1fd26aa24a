import type { ChatMessage, GenerateRequest, ModelProvider, ToolSpec } from '@vigil/agent';

/** The one tool of the wire specs' requests, with a strict object schema. */
export const CAMPAIGN_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
  additionalProperties: false,
};
export const CAMPAIGN_TOOLS: ToolSpec[] = [
  { name: 'create_campaign', description: 'Creates a campaign.', parameters: CAMPAIGN_SCHEMA },
];

/** A model request as a slice sends one: a system prompt, the conversation, one tool. */
export const wireRequest = (
  messages: ChatMessage[],
  signal = new AbortController().signal,
): GenerateRequest => ({
  system: 'You are careful.',
  messages,
  tools: CAMPAIGN_TOOLS,
  signal,
});

/** What `provider` rejects a one-message request with (or resolves with, if it does not). */
export const errorOf = (provider: ModelProvider): Promise<unknown> =>
  provider.generate(wireRequest([{ role: 'user', content: 'Hi' }])).catch((e: unknown) => e);

/**
 * A one-message call that the caller aborts 100 ms in, as a stopped slice does: what the call
 * rejected with, the abort's reason, and how long the call took in all.
 */
export async function abortedCall(
  provider: ModelProvider,
): Promise<{ error: unknown; reason: Error; ms: number }> {
  const controller = new AbortController();
  const reason = new Error('slice aborted');
  setTimeout(() => controller.abort(reason), 100);
  const started = Date.now();
  const error = await provider
    .generate(wireRequest([{ role: 'user', content: 'Hi' }], controller.signal))
    .catch((e: unknown) => e);
  return { error, reason, ms: Date.now() - started };
}
