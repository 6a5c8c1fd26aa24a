import sharp from 'sharp';
import { anthropicImageTokens, geminiImageTokens, pixelSize } from './image-tokens';

const image = (width: number, height: number, format: 'png' | 'jpeg' | 'webp' | 'gif') =>
  sharp({ create: { width, height, channels: 3, background: { r: 9, g: 99, b: 199 } } })
    .toFormat(format)
    .toBuffer();

/** The billing fakes price an image by its pixels, as each provider documents, never by its base64. */
describe('image tokens in the billing fakes', () => {
  it.each(['png', 'jpeg', 'webp', 'gif'] as const)('reads the pixel size of a %s', async (format) => {
    expect(pixelSize(await image(1280, 720, format))).toEqual({ width: 1280, height: 720 });
  });

  it('Anthropic: width × height / 750, after scaling into 1,568 px and ~1,600 tokens', async () => {
    const base64 = async (w: number, h: number) => (await image(w, h, 'png')).toString('base64');
    expect(anthropicImageTokens(await base64(200, 200))).toBe(54);
    expect(anthropicImageTokens(await base64(1000, 1000))).toBe(1334);
    // A 1280×720 screenshot is ~1,229 tokens, over 30 times fewer than its ~100 KB of base64 / 4.
    expect(anthropicImageTokens(await base64(1280, 720))).toBe(1229);
    expect(anthropicImageTokens(await base64(4000, 3000))).toBeLessThanOrEqual(1600);
  });

  it('Gemini: 258 within 384 px, else 258 per 768 px tile', async () => {
    const base64 = async (w: number, h: number) => (await image(w, h, 'png')).toString('base64');
    expect(geminiImageTokens(await base64(384, 300))).toBe(258);
    expect(geminiImageTokens(await base64(1280, 720))).toBe(2 * 258);
  });

  it('refuses what is not an image', () => {
    expect(() => pixelSize(Buffer.from('<svg/>'))).toThrow(/not a PNG/);
  });
});
