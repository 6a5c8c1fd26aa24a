import { GenerateContentResponse } from '@google/genai';
import {
  GeminiWireFake,
  type WireBody,
  geminiReply,
  geminiStreamChunks,
  openGeminiStream,
  sendGemini,
  abortMidStream,
  textHandedOnMidStream,
  wireRequest,
  writeGeminiChunks,
  type StreamServer,
} from '@vigil/testing';
import { GeminiProvider, createGeminiClient } from './gemini.provider';
import { GeminiStreamAssembly } from './gemini-stream';

const KEY = 'gemini-stream-key';
/** generateContent and streamGenerateContent on loopback, streaming as documented. */
const api = new GeminiWireFake(KEY);
beforeAll(() => api.listen());
afterAll(() => api.close());
beforeEach(() => api.reset());

const settings = () => ({ geminiApiKey: KEY, geminiBaseUrl: api.baseUrl, geminiModel: 'gemini-3-pro' });
const options = {
  attempts: 1,
  retryDelayMs: 5,
  timeoutMs: 10_000,
  fetch: (url: any, init: any) => fetch(url, init),
};
const provider = () => new GeminiProvider(settings(), options);

/** A thought, text, a function call with its signature, billed with implicit cache reads. */
const REPLY: WireBody = {
  ...geminiReply([
    { text: 'weighing the options', thought: true },
    { text: 'Creating the spring campaign now.' },
    {
      functionCall: { id: 'call_1', name: 'create_campaign', args: { name: 'Spring' } },
      thoughtSignature: 'c2ln',
    },
  ]),
  usageMetadata: {
    promptTokenCount: 3000,
    cachedContentTokenCount: 2048,
    candidatesTokenCount: 25,
    thoughtsTokenCount: 7,
    totalTokenCount: 3032,
  },
};

/** streamGenerateContent's chunks, served part by part by the tests that cut them. */
const stream: StreamServer<WireBody> = {
  answerWith: (answer) => (api.answer = (_body, res) => answer(res)),
  open: openGeminiStream,
  write: writeGeminiChunks,
};

describe('GeminiStreamAssembly', () => {
  it('puts the chunks back together: parts in order, the last usage, the finish reason', () => {
    const texts: string[] = [];
    const assembly = new GeminiStreamAssembly((text) => texts.push(text));
    for (const chunk of geminiStreamChunks(REPLY, 5))
      assembly.add(Object.assign(new GenerateContentResponse(), chunk));
    const response = assembly.response();
    expect(texts.join('')).toBe('Creating the spring campaign now.');
    expect(response.candidates?.[0].finishReason).toBe('STOP');
    expect(response.candidates?.[0].content?.parts?.filter((p) => p.functionCall)).toEqual([
      REPLY.candidates[0].content.parts[2],
    ]);
    expect(response.usageMetadata).toEqual(REPLY.usageMetadata);
  });

  it('keeps a blocked prompt blocked: no candidate, its feedback', () => {
    const assembly = new GeminiStreamAssembly();
    assembly.add(Object.assign(new GenerateContentResponse(), { promptFeedback: { blockReason: 'SAFETY' } }));
    expect(assembly.response().candidates).toBeUndefined();
    expect(assembly.response().promptFeedback).toEqual({ blockReason: 'SAFETY' });
  });
});

describe('GeminiProvider streams (docs/api.md, "Live model output")', () => {
  it('assembles exactly what a non-streamed call returns, and its text pieces join to the text', async () => {
    api.answer = (_body, res) => sendGemini(res, 200, REPLY);
    const pieces: string[] = [];
    const streaming = provider();
    const streamed = await streaming.generate({
      ...wireRequest([{ role: 'user', content: 'Go.' }]),
      onText: (t) => pieces.push(t),
    });
    expect(api.requests[0].url).toContain(':streamGenerateContent?alt=sse');

    // The same answer through the SDK's non-streamed generateContent, parsed as before streaming.
    const reference = provider();
    const plain = await createGeminiClient(settings(), options).models.generateContent({
      model: 'gemini-3-pro',
      contents: [{ role: 'user', parts: [{ text: 'Go.' }] }],
    });
    expect(api.requests[1].url).toContain(':generateContent');
    expect(streamed).toEqual(reference['parse'](plain));
    expect(streamed).toEqual({
      text: 'Creating the spring campaign now.',
      toolCalls: [{ id: 'call_1', name: 'create_campaign', args: { name: 'Spring' } }],
      usage: { inputTokens: 952, outputTokens: 32, cacheReadTokens: 2048, cacheWriteTokens: 0 },
    });
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join('')).toBe(streamed.text);

    // The call's signature came through the stream: it goes back with the history.
    api.answer = (_body, res) => sendGemini(res, 200, geminiReply([{ text: 'Done.' }]));
    await streaming.generate(
      wireRequest([
        { role: 'user', content: 'Go.' },
        { role: 'assistant', content: streamed.text, toolCalls: streamed.toolCalls },
        {
          role: 'tool',
          toolCallId: 'call_1',
          name: 'create_campaign',
          content: '{"id":"c1"}',
          isError: false,
        },
      ]),
    );
    expect(api.requests[2].body.contents[1].parts[1]).toEqual({
      functionCall: { id: 'call_1', name: 'create_campaign', args: { name: 'Spring' } },
      thoughtSignature: 'c2ln',
    });
  });

  it('hands text on while the reply is still streaming', async () => {
    const chunks = geminiStreamChunks(REPLY);
    const firstText =
      chunks.findIndex(
        (c) => c.candidates[0].content.parts[0].text && !c.candidates[0].content.parts[0].thought,
      ) + 1;
    const { seenBeforeEnd, reply } = await textHandedOnMidStream(
      stream,
      provider(),
      chunks.slice(0, firstText),
      chunks.slice(firstText),
    );
    expect(seenBeforeEnd[0]).toBe('Creating');
    expect(reply.toolCalls).toHaveLength(1);
  });

  it('an abort mid-stream rejects with its reason and closes the connection', async () => {
    const { error, reason } = await abortMidStream(stream, provider(), geminiStreamChunks(REPLY).slice(0, 3));
    expect(error).toBe(reason);
  });
});
