import {
  GeminiWireFake,
  geminiError,
  geminiReply,
  sendGemini,
  CAMPAIGN_SCHEMA,
  wireRequest,
  errorOf,
  abortedCall,
} from '@vigil/testing';
import { GeminiProvider } from './gemini.provider';
import type { ChatMessage } from './model-provider';
import { ModelProviderError } from './provider-support';

const KEY = 'gemini-test-key';
/** generateContent on loopback, refusing what the real one refuses; each test sets its answer. */
const api = new GeminiWireFake(KEY);
beforeAll(() => api.listen());
afterAll(() => api.close());
beforeEach(() => api.reset());

const provider = (model = 'gemini-test', apiKey = KEY) =>
  new GeminiProvider(
    { geminiApiKey: apiKey, geminiBaseUrl: api.baseUrl, geminiModel: model },
    { attempts: 3, retryDelayMs: 5, timeoutMs: 10_000, fetch: (url, init) => fetch(url, init) },
  );

describe('GeminiProvider against the generateContent wire format', () => {
  it('runs a tool-using round trip: functionCall out, functionResponse back with id and signature', async () => {
    const gemini = provider();
    api.answer = (body, res) =>
      sendGemini(
        res,
        200,
        body.contents.length === 1
          ? geminiReply([
              { text: 'Creating it.' },
              {
                functionCall: { id: 'call_1', name: 'create_campaign', args: { name: 'Spring' } },
                thoughtSignature: 'c2ln',
              },
            ])
          : geminiReply([{ text: 'Done.' }], { promptTokenCount: 150, candidatesTokenCount: 3 }),
      );
    const history: ChatMessage[] = [{ role: 'user', content: 'Build the campaign.' }];
    const first = await gemini.generate(wireRequest(history));
    expect(first).toEqual({
      text: 'Creating it.',
      toolCalls: [{ id: 'call_1', name: 'create_campaign', args: { name: 'Spring' } }],
      usage: { inputTokens: 90, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });

    const sent = api.requests[0];
    expect(sent.model).toBe('gemini-test');
    expect(sent.headers['x-goog-api-key']).toBe(KEY);
    expect(sent.body.contents).toEqual([{ role: 'user', parts: [{ text: 'Build the campaign.' }] }]);
    expect(sent.body.systemInstruction).toEqual({ parts: [{ text: 'You are careful.' }] });
    expect(sent.body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'create_campaign',
            description: 'Creates a campaign.',
            parametersJsonSchema: CAMPAIGN_SCHEMA,
          },
        ],
      },
    ]);
    expect(sent.body.generationConfig).toEqual({ maxOutputTokens: 4096 });

    history.push({ role: 'assistant', content: first.text, toolCalls: first.toolCalls });
    history.push({
      role: 'tool',
      toolCallId: 'call_1',
      name: 'create_campaign',
      content: '{"id":"c1"}',
      isError: false,
    });
    const second = await gemini.generate(wireRequest(history));
    expect(second).toEqual({
      text: 'Done.',
      toolCalls: [],
      usage: { inputTokens: 150, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(api.requests[1].body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { text: 'Creating it.' },
          {
            functionCall: { id: 'call_1', name: 'create_campaign', args: { name: 'Spring' } },
            thoughtSignature: 'c2ln',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_1', name: 'create_campaign', response: { result: { id: 'c1' } } } },
        ],
      },
    ]);
  });

  it('gives id-less calls stable unique ids, keeps them off the wire, and merges the responses', async () => {
    const gemini = provider();
    api.answer = (body, res) =>
      sendGemini(
        res,
        200,
        body.contents.length === 1
          ? geminiReply([
              { functionCall: { name: 'create_campaign', args: { name: 'A' } } },
              { functionCall: { name: 'create_campaign', args: { name: 'B' } } },
            ])
          : geminiReply([{ text: 'ok' }]),
      );
    const history: ChatMessage[] = [{ role: 'user', content: 'Go.' }];
    const first = await gemini.generate(wireRequest(history));
    const ids = first.toolCalls.map((call) => call.id);
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id) => id.startsWith('gemini_call_'))).toBe(true);

    history.push({ role: 'assistant', content: '', toolCalls: first.toolCalls });
    history.push({
      role: 'tool',
      toolCallId: ids[0],
      name: 'create_campaign',
      content: '{"id":"a"}',
      isError: false,
    });
    history.push({
      role: 'tool',
      toolCallId: ids[1],
      name: 'create_campaign',
      content: '{"error":"taken"}',
      isError: true,
    });
    await gemini.generate(wireRequest(history));
    expect(api.requests[1].body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'create_campaign', args: { name: 'A' } } },
          { functionCall: { name: 'create_campaign', args: { name: 'B' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'create_campaign', response: { result: { id: 'a' } } } },
          { functionResponse: { name: 'create_campaign', response: { error: 'taken' } } },
        ],
      },
    ]);
  });

  it('signs a replayed call it never saw with the documented stand-in on Gemini 3 models only', async () => {
    api.answer = (_body, res) => sendGemini(res, 200, geminiReply([{ text: 'ok' }]));
    const history: ChatMessage[] = [
      { role: 'user', content: 'Go.' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'old_1', name: 'create_campaign', args: { name: 'A' } }],
      },
      { role: 'tool', toolCallId: 'old_1', name: 'create_campaign', content: '{}', isError: false },
    ];
    await provider('gemini-3-pro-preview').generate(wireRequest(history));
    await provider('gemini-2.5-pro').generate(wireRequest(history));
    expect(api.requests[0].body.contents[1].parts[0].thoughtSignature).toBe(
      'skip_thought_signature_validator',
    );
    expect(api.requests[1].body.contents[1].parts[0].thoughtSignature).toBeUndefined();
  });

  it('parses a text-only reply, skips thought parts, and maps usage with thinking as output', async () => {
    api.answer = (_body, res) =>
      sendGemini(res, 200, {
        ...geminiReply([{ text: 'pondering', thought: true }, { text: 'Hello ' }, { text: 'there.' }]),
        usageMetadata: {
          promptTokenCount: 1000,
          candidatesTokenCount: 40,
          thoughtsTokenCount: 60,
          totalTokenCount: 1100,
        },
      });
    const result = await provider().generate({
      ...wireRequest([{ role: 'user', content: 'Hi' }]),
      tools: [],
    });
    expect(result).toEqual({
      text: 'Hello there.',
      toolCalls: [],
      usage: { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(api.requests[0].body.tools).toBeUndefined();
  });

  it('turns a 400 into a non-retryable error without retrying', async () => {
    api.answer = (_body, res) =>
      sendGemini(res, 400, geminiError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload'));
    const error = await errorOf(provider());
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(error).toMatchObject({ retryable: false, status: 400, provider: 'gemini' });
    expect((error as Error).message).toContain('Invalid JSON payload');
    expect(api.requests).toHaveLength(1);
  });

  it('turns a rejected API key (403) into a non-retryable error', async () => {
    const error = await errorOf(provider('gemini-test', 'wrong-key'));
    expect(error).toMatchObject({ retryable: false, status: 403 });
  });

  it.each([
    [429, 'RESOURCE_EXHAUSTED'],
    [503, 'UNAVAILABLE'],
  ])('turns a %i into a retryable error after the SDK retried twice', async (code, status) => {
    api.answer = (_body, res) => sendGemini(res, code, geminiError(code, status, 'try later'));
    const error = await errorOf(provider());
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(error).toMatchObject({ retryable: true, status: code });
    expect(api.requests).toHaveLength(3);
  });

  it('rejects within a second when aborted while the API is still answering', async () => {
    api.answer = (_body, res) =>
      setTimeout(() => sendGemini(res, 200, geminiReply([{ text: 'late' }])), 5_000).unref();
    const { error, reason, ms } = await abortedCall(provider());
    expect(ms).toBeLessThan(1_000);
    expect(error).toBe(reason);
    expect(api.requests).toHaveLength(1);
  });
});
