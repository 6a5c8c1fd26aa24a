import type { ChatMessage, GenerateRequest, ToolSpec, Usage } from './model-provider';
import { estimateCostUsd, priceOf, worstCasePrice } from './price-table';
import {
  AnthropicBillingFake,
  type BilledUsage,
  GeminiBillingFake,
  anthropicOnFake,
  geminiOnFake,
} from '@vigil/testing';

/**
 * Prompt caching through the real SDKs against fakes that bill as the providers document
 * (libs/testing/src/providers/billing-fakes.ts): the usage the runtime parses is the usage billed, cache fields
 * included, and its cost is the price table applied to it (docs/models.md, "Prompts that stay bounded").
 */
const KEY = 'caching-test-key';
const next = () => ({ name: 'noop_step', args: { index: 0 } });
const tools: ToolSpec[] = [
  {
    name: 'noop_step',
    description: 'Performs one step.',
    parameters: { type: 'object', properties: { index: { type: 'integer' } }, required: ['index'] },
  },
];
// Long enough to pass either provider's minimum cacheable prefix (1,024 / 2,048 tokens at ~4 chars each).
const system = `You are careful. ${'Follow the plan exactly and never repeat a completed step. '.repeat(180)}`;
const opening: ChatMessage = {
  role: 'user',
  content: 'Completed steps (0 of 3): none yet.',
  cacheBreakpoint: true,
};
const request = (messages: ChatMessage[]): GenerateRequest => ({
  system,
  messages,
  tools,
  signal: new AbortController().signal,
});
const afterOneStep = (id: string): ChatMessage[] => [
  opening,
  { role: 'assistant', content: '', toolCalls: [{ id, name: 'noop_step', args: { index: 0 } }] },
  { role: 'tool', toolCallId: id, name: 'noop_step', content: '{"index":0,"done":true}', isError: false },
];

const asUsage = (billed: BilledUsage): Usage => ({
  inputTokens: billed.uncached,
  outputTokens: billed.output,
  cacheReadTokens: billed.cacheRead,
  cacheWriteTokens: billed.cacheWrite,
});
const byHand = (modelId: string, u: Usage) => {
  const p = priceOf(modelId);
  return (
    (u.inputTokens * p.input +
      u.outputTokens * p.output +
      u.cacheReadTokens! * p.cacheRead +
      u.cacheWriteTokens! * p.cacheWrite) /
    1e6
  );
};

describe('prompt caching, billed and priced', () => {
  it('the price table has the documented cache rates', () => {
    expect(priceOf('claude-opus-4-1')).toEqual({ input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 });
    expect(priceOf('gemini-2.5-pro')).toEqual({
      input: 1.25,
      output: 10,
      cacheWrite: 1.25,
      cacheRead: 0.125,
    });
  });

  it('reserves every prompt token at the dearest rate a prompt token can be billed at', () => {
    // Opus: a cache write (1.25×) is dearer than input, so the worst case is priced at it, rounded up.
    expect(worstCasePrice(priceOf('claude-opus-4-1'))).toMatchObject({ input: 19, output: 75 });
    expect(worstCasePrice(priceOf('gemini-2.5-pro'))).toEqual(priceOf('gemini-2.5-pro'));
  });

  it('Anthropic: breakpoints on tools, system, opening and the conversation end; a write, then reads; usage and cost as billed', async () => {
    const fake = new AnthropicBillingFake({ apiKey: KEY, next });
    const claude = anthropicOnFake(KEY, await fake.listen());
    try {
      const first = await claude.generate(request([opening]));
      const second = await claude.generate(request(afterOneStep('toolu_1')));
      const body = fake.calls[0].body;
      expect(body.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
      expect(body.system).toEqual([{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }]);
      expect(body.messages[0].content[0].cache_control).toEqual({ type: 'ephemeral' });

      const [billed1, billed2] = fake.calls.map((call) => call.usage);
      // First call: the whole prefix up to the opening is written; nothing read.
      expect(billed1.cacheWrite).toBeGreaterThan(1024);
      expect(billed1.cacheRead).toBe(0);
      // Second call: the same prefix is read; the new turns, up to the breakpoint that moved to the
      // end of the conversation, are written for the next call to read; nothing is left uncached.
      expect(fake.calls[1].body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
      expect(billed2.cacheRead).toBe(billed1.cacheWrite);
      expect(billed2.cacheWrite).toBeGreaterThan(0);
      expect(billed2.cacheWrite).toBeLessThan(100);
      expect(billed2.uncached).toBe(0);

      expect(first.usage).toEqual(asUsage(billed1));
      expect(second.usage).toEqual(asUsage(billed2));
      for (const [reply, billed] of [
        [first, billed1],
        [second, billed2],
      ] as const) {
        expect(estimateCostUsd(claude, reply.usage)).toBeCloseTo(byHand(claude.modelId, asUsage(billed)), 12);
      }
      // The read is a tenth of the input rate: the second call's prompt costs far less than the first's.
      expect(estimateCostUsd(claude, second.usage)).toBeLessThan(estimateCostUsd(claude, first.usage) / 5);
    } finally {
      await fake.close();
    }
  });

  it('Anthropic without caching sends no breakpoints and is billed everything as input', async () => {
    const fake = new AnthropicBillingFake({ apiKey: KEY, next });
    const claude = anthropicOnFake(KEY, await fake.listen(), { promptCaching: false });
    try {
      await claude.generate(request([opening]));
      const reply = await claude.generate(request(afterOneStep('toolu_1')));
      expect(JSON.stringify(fake.calls[1].body)).not.toContain('cache_control');
      expect(reply.usage).toEqual(asUsage(fake.calls[1].usage));
      expect(reply.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
      expect(reply.usage.inputTokens).toBe(fake.calls[1].usage.prompt);
    } finally {
      await fake.close();
    }
  });

  it('Gemini: an identical stable prefix is served from the implicit cache; usage and cost as billed', async () => {
    const fake = new GeminiBillingFake({ apiKey: KEY, next });
    const gemini = geminiOnFake(KEY, await fake.listen());
    try {
      const first = await gemini.generate(request([opening]));
      const second = await gemini.generate(request(afterOneStep('gemini_call_1')));
      // Stable first: the system instruction and the tools lead, the slice's opening heads the contents.
      const body = fake.calls[1].body;
      expect(Object.keys(body)).toEqual(expect.arrayContaining(['systemInstruction', 'tools', 'contents']));
      expect(body.contents[0].parts[0].text).toBe(opening.content);

      const [billed1, billed2] = fake.calls.map((call) => call.usage);
      expect(billed1.cacheRead).toBe(0);
      expect(billed2.cacheRead).toBe(billed1.prompt);
      expect(billed2.uncached).toBe(billed2.prompt - billed1.prompt);
      expect(first.usage).toEqual(asUsage(billed1));
      expect(second.usage).toEqual(asUsage(billed2));
      for (const [reply, billed] of [
        [first, billed1],
        [second, billed2],
      ] as const) {
        expect(estimateCostUsd(gemini, reply.usage)).toBeCloseTo(byHand(gemini.modelId, asUsage(billed)), 12);
      }
    } finally {
      await fake.close();
    }
  });
});
