/**
 * What an image in a prompt costs, as each provider documents it, for the billing fakes: never by
 * its base64 (a 100 KB screenshot is not 33,000 tokens). The pixel size is read from the image's
 * own header (PNG, GIF, WebP, JPEG), independently of the runtime's code.
 *
 * - Anthropic ("Vision", "Calculate image costs"): an image whose long edge is over 1,568 pixels or
 *   that would cost over ~1,600 tokens is first scaled down, keeping its aspect ratio; then it
 *   costs width × height / 750 tokens.
 * - Gemini ("Image understanding", "Tokens"): both sides ≤ 384 pixels: 258 tokens; larger: tiles
 *   of 768 × 768 pixels, 258 tokens each.
 */
export function anthropicImageTokens(base64: string): number {
  const { width, height } = pixelSize(Buffer.from(base64, 'base64'));
  const scale = Math.min(1, 1568 / Math.max(width, height), Math.sqrt((1600 * 750) / (width * height)));
  return Math.ceil((Math.floor(width * scale) * Math.floor(height * scale)) / 750);
}

export function geminiImageTokens(base64: string): number {
  const { width, height } = pixelSize(Buffer.from(base64, 'base64'));
  if (width <= 384 && height <= 384) return 258;
  return Math.ceil(width / 768) * Math.ceil(height / 768) * 258;
}

/** Width and height from a PNG, GIF, WebP or JPEG header; throws on anything else (the fake refuses it). */
export function pixelSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.subarray(1, 4).toString('latin1') === 'PNG')
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.subarray(0, 3).toString('latin1') === 'GIF')
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  if (bytes.subarray(8, 12).toString('latin1') === 'WEBP') return webpSize(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes);
  throw new Error('image is not a PNG, GIF, WebP or JPEG');
}

function webpSize(bytes: Buffer): { width: number; height: number } {
  const chunk = bytes.subarray(12, 16).toString('latin1');
  if (chunk === 'VP8 ')
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  // VP8X: 24-bit canvas width and height minus one.
  return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
}

/** The first start-of-frame marker's size (SOF0–SOF15, not DHT, JPG or DAC). */
function jpegSize(bytes: Buffer): { width: number; height: number } {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) throw new Error('JPEG marker expected');
    const marker = bytes[offset + 1];
    const length = bytes.readUInt16BE(offset + 2);
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
      return { width: bytes.readUInt16BE(offset + 7), height: bytes.readUInt16BE(offset + 5) };
    offset += 2 + length;
  }
  throw new Error('JPEG without a frame header');
}
