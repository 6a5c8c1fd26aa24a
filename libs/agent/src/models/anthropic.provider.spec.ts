import {
  AnthropicWireFake,
  anthropicError,
  anthropicMessage,
  sendAnthropic,
  CAMPAIGN_SCHEMA,
  wireRequest,
  errorOf,
  abortedCall,
} from '@vigil/testing';
import { AnthropicProvider, toAnthropicMessages } from './anthropic.provider';
import type { ChatMessage } from './model-provider';
import { ModelProviderError } from './provider-support';

type Body = Record<string, any>;

const KEY = 'sk-ant-test-key';
/** The Messages API on loopback, refusing what the real one refuses; each test sets its answer. */
const api = new AnthropicWireFake(KEY);
beforeAll(() => api.listen());
afterAll(() => api.close());
beforeEach(() => api.reset());

const provider = () =>
  new AnthropicProvider(
    { anthropicApiKey: KEY, anthropicBaseUrl: api.baseUrl, anthropicModel: 'claude-test' },
    { maxRetries: 2, timeoutMs: 10_000 },
  );

describe('AnthropicProvider against the Messages API wire format', () => {
  it('runs a tool-using round trip: tool_use out, tool_result back, paired by id', async () => {
    const claude = provider();
    api.answer = (body, res) =>
      sendAnthropic(
        res,
        200,
        body.messages.length === 1
          ? anthropicMessage(
              [
                { type: 'text', text: 'Creating it.' },
                { type: 'tool_use', id: 'toolu_01', name: 'create_campaign', input: { name: 'Spring' } },
              ],
              'tool_use',
            )
          : anthropicMessage([{ type: 'text', text: 'Done.' }], 'end_turn', {
              input_tokens: 200,
              output_tokens: 5,
            }),
      );
    const history: ChatMessage[] = [{ role: 'user', content: 'Build the campaign.' }];
    const first = await claude.generate(wireRequest(history));
    expect(first).toEqual({
      text: 'Creating it.',
      toolCalls: [{ id: 'toolu_01', name: 'create_campaign', args: { name: 'Spring' } }],
      usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });

    const sent = api.requests[0];
    expect(sent.headers['x-api-key']).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      // Streamed (docs/api.md, "Live model output").
      stream: true,
      // Prompt-caching breakpoints on the last tool, the system prompt and the end of the
      // conversation so far (docs/models.md, "Prompts that stay bounded").
      system: [{ type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'Build the campaign.', cache_control: { type: 'ephemeral' } }],
        },
      ],
      tools: [
        {
          name: 'create_campaign',
          description: 'Creates a campaign.',
          input_schema: CAMPAIGN_SCHEMA,
          cache_control: { type: 'ephemeral' },
        },
      ],
    });

    history.push({ role: 'assistant', content: first.text, toolCalls: first.toolCalls });
    history.push({
      role: 'tool',
      toolCallId: 'toolu_01',
      name: 'create_campaign',
      content: '{"id":"c1"}',
      isError: false,
    });
    const second = await claude.generate(wireRequest(history));
    expect(second).toEqual({
      text: 'Done.',
      toolCalls: [],
      usage: { inputTokens: 200, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(api.requests[1].body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Creating it.' },
          { type: 'tool_use', id: 'toolu_01', name: 'create_campaign', input: { name: 'Spring' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01',
            content: '{"id":"c1"}',
            is_error: false,
            // The breakpoint moved to the end of the conversation.
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ]);
    expect(api.requests[1].body.messages[0].content[0].cache_control).toBeUndefined();
  });

  it('merges consecutive tool results into one user message and marks failures is_error', async () => {
    api.answer = (_body, res) =>
      sendAnthropic(res, 200, anthropicMessage([{ type: 'text', text: 'ok' }], 'end_turn'));
    await provider().generate(
      wireRequest([
        { role: 'user', content: 'Go.' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'toolu_a', name: 'create_campaign', args: { name: 'A' } },
            { id: 'toolu_b', name: 'create_campaign', args: { name: 'B' } },
          ],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_a',
          name: 'create_campaign',
          content: '{"id":"a"}',
          isError: false,
        },
        {
          role: 'tool',
          toolCallId: 'toolu_b',
          name: 'create_campaign',
          content: '{"error":"taken"}',
          isError: true,
        },
        { role: 'user', content: 'Continue.' },
      ]),
    );
    const messages = api.requests[0].body.messages;
    expect(messages).toHaveLength(3);
    expect(messages[1].content.map((b: Body) => b.type)).toEqual(['tool_use', 'tool_use']);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: '{"id":"a"}', is_error: false },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: '{"error":"taken"}', is_error: true },
        { type: 'text', text: 'Continue.', cache_control: { type: 'ephemeral' } },
      ],
    });
  });

  it('answers a tool call left without a result, so the history stays valid', () => {
    const wire = toAnthropicMessages([
      { role: 'user', content: 'Go.' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_x', name: 't', args: {} }] },
      { role: 'tool', toolCallId: 'toolu_stray', name: 't', content: '{}', isError: false },
      { role: 'user', content: 'Next.' },
    ]);
    expect(wire[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_x', content: '{"error":"not executed"}', is_error: true },
        { type: 'text', text: 'Next.' },
      ],
    });
  });

  it('parses a text-only reply and maps usage', async () => {
    api.answer = (_body, res) =>
      sendAnthropic(
        res,
        200,
        anthropicMessage(
          [
            { type: 'text', text: 'First.' },
            { type: 'text', text: 'Second.' },
          ],
          'end_turn',
          { input_tokens: 1234, output_tokens: 56 },
        ),
      );
    const reply = await provider().generate({ ...wireRequest([{ role: 'user', content: 'Hi' }]), tools: [] });
    expect(reply).toEqual({
      text: 'First.\nSecond.',
      toolCalls: [],
      usage: { inputTokens: 1234, outputTokens: 56, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(api.requests[0].body.tools).toBeUndefined();
  });

  it('turns a 400 into a non-retryable error without retrying', async () => {
    api.answer = (_body, res) =>
      sendAnthropic(res, 400, anthropicError('invalid_request_error', 'max_tokens: too large'));
    const error = await errorOf(provider());
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(error).toMatchObject({ retryable: false, status: 400, provider: 'opus' });
    expect((error as Error).message).toContain('max_tokens: too large');
    expect(api.requests).toHaveLength(1);
  });

  it('turns a 401 into a non-retryable error', async () => {
    const wrongKey = new AnthropicProvider(
      { anthropicApiKey: 'sk-ant-wrong', anthropicBaseUrl: api.baseUrl, anthropicModel: 'claude-test' },
      { maxRetries: 2 },
    );
    const error = await errorOf(wrongKey);
    expect(error).toMatchObject({ retryable: false, status: 401 });
  });

  it.each([
    [429, 'rate_limit_error'],
    [529, 'overloaded_error'],
    [500, 'api_error'],
  ])('turns a %i into a retryable error after the SDK retried twice', async (status, type) => {
    api.answer = (_body, res) =>
      sendAnthropic(res, status, anthropicError(type, 'try later'), { 'retry-after-ms': '5' });
    const error = await errorOf(provider());
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(error).toMatchObject({ retryable: true, status });
    expect(api.requests).toHaveLength(3);
  });

  it('rejects within a second when aborted while the API is still answering', async () => {
    api.answer = (_body, res) =>
      setTimeout(() => sendAnthropic(res, 200, anthropicMessage([], 'end_turn')), 5_000).unref();
    const { error, reason, ms } = await abortedCall(provider());
    expect(ms).toBeLessThan(1_000);
    expect(error).toBe(reason);
    expect(api.requests).toHaveLength(1);
  });
});
