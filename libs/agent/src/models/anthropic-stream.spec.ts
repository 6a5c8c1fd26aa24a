import type { ServerResponse } from 'node:http';
import {
  AnthropicWireFake,
  anthropicMessage,
  anthropicStreamEvents,
  openAnthropicStream,
  sendAnthropic,
  wireRequest,
  writeSse,
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

/** Resolves once `res` is closed (by the client going away, or by the fake ending it). */
const closed = (res: ServerResponse) => new Promise<void>((resolve) => res.on('close', () => resolve()));

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
    const firstDelta = events.findIndex((e) => e.event === 'content_block_delta');
    let release!: () => void;
    const textSeen = new Promise<void>((resolve) => (release = resolve));
    api.answer = (_body, res) => {
      openAnthropicStream(res);
      writeSse(res, events.slice(0, firstDelta + 1));
      // The rest only once the client handed the first piece on: the call cannot have ended before.
      void textSeen.then(() => {
        writeSse(res, events.slice(firstDelta + 1));
        res.end();
      });
    };
    let ended = false;
    const seenBeforeEnd: string[] = [];
    const reply = await provider().generate({
      ...wireRequest([{ role: 'user', content: 'Go.' }]),
      onText: (text) => {
        if (!ended) seenBeforeEnd.push(text);
        release();
      },
    });
    ended = true;
    expect(seenBeforeEnd[0]).toBe('Creating');
    expect(reply.toolCalls).toHaveLength(1);
  });

  it('an abort mid-stream rejects with its reason and closes the connection', async () => {
    const events = anthropicStreamEvents(MESSAGE);
    let connection!: Promise<void>;
    api.answer = (_body, res) => {
      connection = closed(res);
      openAnthropicStream(res);
      // Half the reply, then nothing: a model still writing.
      writeSse(res, events.slice(0, 5));
    };
    const controller = new AbortController();
    const reason = new Error('task was stopped');
    const error = await provider()
      .generate({
        ...wireRequest([{ role: 'user', content: 'Go.' }], controller.signal),
        onText: () => controller.abort(reason),
      })
      .catch((e: unknown) => e);
    expect(error).toBe(reason);
    await connection;
  });
});
