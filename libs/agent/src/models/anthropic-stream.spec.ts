import {
  AnthropicWireFake,
  anthropicMessage,
  anthropicStreamEvents,
  openAnthropicStream,
  sendAnthropic,
  abortMidStream,
  textHandedOnMidStream,
  wireRequest,
  writeSse,
  type StreamServer,
  type WireSseEvent,
} from '@vigil/testing';
import {
  AnthropicProvider,
  createAnthropicClient,
  parseAnthropicReply,
  toAnthropicBody,
} from './anthropic.provider';

const KEY = 'sk-ant-stream-key';
/** The Messages API on loopback, streaming as documented when asked to. */
const api = new AnthropicWireFake(KEY);
beforeAll(() => api.listen());
afterAll(() => api.close());
beforeEach(() => api.reset());

const settings = () => ({
  anthropicApiKey: KEY,
  anthropicBaseUrl: api.baseUrl,
  anthropicModel: 'claude-test',
});
const provider = () => new AnthropicProvider(settings(), { maxRetries: 0, timeoutMs: 10_000 });

/** Text, a second text block and a tool call, billed with cache reads and writes. */
const MESSAGE = anthropicMessage(
  [
    { type: 'text', text: 'Creating the spring campaign now.' },
    { type: 'text', text: 'Then I report.' },
    {
      type: 'tool_use',
      id: 'toolu_01',
      name: 'create_campaign',
      input: { name: 'Spring', tags: ['a', 'b'] },
    },
  ],
  'tool_use',
  { input_tokens: 40, cache_creation_input_tokens: 1500, cache_read_input_tokens: 2100, output_tokens: 61 },
);

/** The Messages API's stream, served part by part by the tests that cut it. */
const stream: StreamServer<WireSseEvent> = {
  answerWith: (answer) => (api.answer = (_body, res) => answer(res)),
  open: openAnthropicStream,
  write: (res, events) => writeSse(res, events),
};

describe('AnthropicProvider streams (docs/api.md, "Live model output")', () => {
  it('assembles exactly what a non-streamed call returns, and its text pieces join to the text', async () => {
    api.answer = (_body, res) => sendAnthropic(res, 200, MESSAGE);
    const pieces: string[] = [];
    const streamed = await provider().generate({
      ...wireRequest([{ role: 'user', content: 'Go.' }]),
      onText: (t) => pieces.push(t),
    });
    expect(api.requests[0].body.stream).toBe(true);

    // The same answer through the SDK's non-streamed create, parsed as before streaming.
    const client = createAnthropicClient(settings(), { maxRetries: 0 });
    const body = toAnthropicBody('claude-test', wireRequest([{ role: 'user', content: 'Go.' }]));
    const plain = parseAnthropicReply(await client.messages.create(body));
    expect(api.requests[1].body.stream).toBeUndefined();

    expect(streamed).toEqual(plain);
    expect(streamed).toEqual({
      text: 'Creating the spring campaign now.\nThen I report.',
      toolCalls: [{ id: 'toolu_01', name: 'create_campaign', args: { name: 'Spring', tags: ['a', 'b'] } }],
      usage: { inputTokens: 40, outputTokens: 61, cacheReadTokens: 2100, cacheWriteTokens: 1500 },
    });
    expect(pieces.length).toBeGreaterThan(4);
    expect(pieces.join('')).toBe(streamed.text);
  });

  it('hands text on while the reply is still streaming', async () => {
    const events = anthropicStreamEvents(MESSAGE);
    const firstDelta = events.findIndex((e) => e.event === 'content_block_delta') + 1;
    const { seenBeforeEnd, reply } = await textHandedOnMidStream(
      stream,
      provider(),
      events.slice(0, firstDelta),
      events.slice(firstDelta),
    );
    expect(seenBeforeEnd[0]).toBe('Creating');
    expect(reply.toolCalls).toHaveLength(1);
  });

  it('an abort mid-stream rejects with its reason and closes the connection', async () => {
    // Half the reply, then nothing: a model still writing.
    const { error, reason } = await abortMidStream(
      stream,
      provider(),
      anthropicStreamEvents(MESSAGE).slice(0, 5),
    );
    expect(error).toBe(reason);
  });
});
