import sharp from 'sharp';
import {
  AnthropicWireFake,
  GeminiWireFake,
  anthropicMessage,
  geminiReply,
  sendAnthropic,
  sendGemini,
  type WireBody,
} from '@vigil/testing';
import { SliceConversation } from '../runtime/slice-conversation';
import { promptTokenBound } from '../runtime/model-spend';
import { AnthropicProvider } from './anthropic.provider';
import { GeminiProvider } from './gemini.provider';
import { imageTokenBound, modelImageOf } from './model-image';
import type { ModelImage, ModelProvider } from './model-provider';

/**
 * Models see images (docs/models.md, "Images"), through the real SDKs against loopback fakes that
 * refuse what the APIs refuse: a screenshot's image reaches the next request inside the
 * tool_result (Anthropic) or with the function response (Gemini), and no request carries more
 * than VISION_MAX_IMAGES of them, however many screenshots the slice took.
 */
const KEY = 'vision-test-key';
const MAX_IMAGES = 3;
const SHOTS = 12;

const screenshot = async (i: number): Promise<ModelImage> => {
  const png = await sharp({
    create: { width: 40 + i, height: 30, channels: 3, background: { r: i * 20, g: 80, b: 160 } },
  })
    .png()
    .toBuffer();
  return (await modelImageOf(`${String(i).padStart(2, '0')}${'f'.repeat(62)}`, png))!;
};

/** A slice of SHOTS screenshots, each answered by the next tool call; the provider's request log. */
async function walk(provider: ModelProvider, toolCallId: (i: number) => string): Promise<ModelImage[]> {
  const conversation = new SliceConversation(
    () => ({
      system: 'You walk through a web app.',
      messages: [{ role: 'user', content: 'Open the app.', cacheBreakpoint: true }],
    }),
    { maxImages: MAX_IMAGES },
  );
  const shots: ModelImage[] = [];
  for (let i = 0; i < SHOTS; i++) {
    const reply = await provider.generate(
      conversation.request(
        [{ name: 'browser__take_screenshot', description: 'screenshot', parameters: { type: 'object' } }],
        new AbortController().signal,
      ),
    );
    conversation.assistant(reply.text, reply.toolCalls);
    const [call] = reply.toolCalls;
    expect(call.id).toBe(toolCallId(i));
    const shot = await screenshot(i);
    shots.push(shot);
    conversation.toolResult(
      call,
      true,
      `[image ${shot.id} image/png ${shot.width}x${shot.height}, 99 bytes]`,
      `shot:${i}`,
      [shot],
    );
  }
  // One more call, which carries the last screenshot.
  await provider.generate(conversation.request([], new AbortController().signal));
  return shots;
}

describe('images reach the model through the real SDKs', () => {
  it('Anthropic: image blocks inside tool_result, at most VISION_MAX_IMAGES per request, the newest', async () => {
    const api = new AnthropicWireFake(KEY);
    await api.listen();
    try {
      let n = 0;
      api.answer = (_body, res) => {
        const id = `toolu_${n++}`;
        sendAnthropic(
          res,
          200,
          anthropicMessage(
            [{ type: 'tool_use', id, name: 'browser__take_screenshot', input: {} }],
            'tool_use',
          ),
        );
      };
      const claude = new AnthropicProvider(
        { anthropicApiKey: KEY, anthropicBaseUrl: api.baseUrl, anthropicModel: 'claude-test' },
        { maxRetries: 0 },
      );
      const shots = await walk(claude, (i) => `toolu_${i}`);
      const imagesOf = (body: WireBody) =>
        (body.messages as WireBody[]).flatMap((m) =>
          (Array.isArray(m.content) ? (m.content as WireBody[]) : [])
            .filter((b) => b.type === 'tool_result' && Array.isArray(b.content))
            .flatMap((b) => (b.content as WireBody[]).filter((c) => c.type === 'image')),
        );
      const counts = api.requests.map((r) => imagesOf(r.body).length);
      expect(Math.max(...counts)).toBeLessThanOrEqual(MAX_IMAGES);
      const last = api.requests.at(-1)!.body;
      expect(imagesOf(last).at(-1)).toEqual({
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: shots.at(-1)!.data },
      });
      // Each request after a screenshot carries it; an image that left is a one-line reference.
      for (const [i, request] of api.requests.slice(1).entries())
        expect(imagesOf(request.body).map((b) => b.source.data)).toContain(shots[i].data);
      expect(JSON.stringify(last)).toContain(
        `[image ${shots[0].id} image/png ${shots[0].width}x30, see artifacts]`,
      );
    } finally {
      await api.close();
    }
  });

  it.each([
    ['gemini-2.5-pro', 'beside the function response'],
    ['gemini-3-pro-preview', 'inside the function response'],
  ])('Gemini (%s): inline data %s, at most VISION_MAX_IMAGES per request', async (model) => {
    const api = new GeminiWireFake(KEY);
    await api.listen();
    try {
      let n = 0;
      api.answer = (_body, res) =>
        sendGemini(
          res,
          200,
          geminiReply([{ functionCall: { id: `call_${n++}`, name: 'browser__take_screenshot', args: {} } }]),
        );
      const gemini = new GeminiProvider(
        { geminiApiKey: KEY, geminiBaseUrl: api.baseUrl, geminiModel: model },
        { attempts: 1, fetch: (url, init) => fetch(url, init) },
      );
      const shots = await walk(gemini, (i) => `call_${i}`);
      const legacy = model.startsWith('gemini-2');
      const inlineOf = (body: WireBody) =>
        (body.contents as WireBody[]).flatMap((c) =>
          (c.parts as WireBody[]).flatMap((p) =>
            legacy
              ? p.inlineData
                ? [p.inlineData as WireBody]
                : []
              : ((p.functionResponse?.parts ?? []) as WireBody[]).map((r) => r.inlineData as WireBody),
          ),
        );
      const counts = api.requests.map((r) => inlineOf(r.body).length);
      expect(Math.max(...counts)).toBeLessThanOrEqual(MAX_IMAGES);
      expect(counts.at(-1)).toBeGreaterThan(0);
      expect(inlineOf(api.requests.at(-1)!.body).at(-1)).toEqual({
        mimeType: 'image/png',
        data: shots.at(-1)!.data,
      });
      for (const [i, request] of api.requests.slice(1).entries())
        expect(inlineOf(request.body).map((d) => d.data)).toContain(shots[i].data);
    } finally {
      await api.close();
    }
  });
});

describe('image tokens in the reservation', () => {
  it('prices an image by its pixels, as documented, never by its base64', async () => {
    expect(imageTokenBound(1000, 1000)).toBeGreaterThanOrEqual(Math.ceil((1000 * 1000) / 750));
    expect(imageTokenBound(300, 300)).toBeGreaterThanOrEqual(258);
    expect(imageTokenBound(1568, 1568)).toBeGreaterThanOrEqual(258 * 9);
    const image = await screenshot(1);
    const text = { role: 'tool' as const, toolCallId: 't', name: 'shot', content: 'x', isError: false };
    const request = (images?: ModelImage[]) => ({
      system: 's',
      tools: [],
      messages: [{ ...text, ...(images ? { images } : {}) }],
    });
    expect(promptTokenBound(request([image]))).toBe(
      promptTokenBound(request()) + imageTokenBound(image.width, image.height),
    );
  });
});
