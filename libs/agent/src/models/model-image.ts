import sharp from 'sharp';
import { rasterTypeOf } from '@vigil/tasks';
import type { ModelImage } from './model-provider';

/**
 * What every provider takes (docs/models.md, "Images"), so one prepared image serves both:
 * - Anthropic: images whose long edge is over 1,568 px are resized by the API before the model
 *   sees them (added latency, no gain), at most 8,000 px, at most 5 MB each, base64 counted
 *   (docs.anthropic.com/en/docs/build-with-claude/vision, "Evaluate image size").
 * - Gemini: inline data travels in the request, at most 20 MB in all
 *   (ai.google.dev/gemini-api/docs/image-understanding, "Passing images inline").
 * A long edge of 1,568 px and 3.75 MB of bytes (5 MB as base64) keeps VISION_MAX_IMAGES (at most
 * 20, default 3) images of one prompt within both.
 */
export const MODEL_IMAGE_MAX_EDGE = 1568;
export const MODEL_IMAGE_MAX_BYTES = 3_750_000;

/** JPEG qualities tried, in order, for an image still too large after resizing. */
const JPEG_QUALITIES = [85, 70, 50];

/**
 * The image as a model is shown it, or null when the bytes are no raster image (an SVG, a PDF, a
 * damaged file): those are only ever named, never sent. An image within the limits goes as the
 * tool returned it; a larger one is scaled down to fit (its aspect kept), and re-encoded as JPEG
 * when even that is too many bytes. An animated GIF is sent as its first frame when it is resized.
 */
export async function modelImageOf(id: string, data: Buffer): Promise<ModelImage | null> {
  const type = rasterTypeOf(data);
  if (!type) return null;
  const meta = await sharp(data)
    .metadata()
    // Bytes with a raster signature whose header sharp cannot read: a damaged image, not shown.
    .catch(() => null);
  if (!meta?.width || !meta.height) return null;
  const { width, height } = meta;
  if (Math.max(width, height) <= MODEL_IMAGE_MAX_EDGE && data.length <= MODEL_IMAGE_MAX_BYTES)
    return { id, mimeType: type, width, height, data: data.toString('base64') };
  const resized = sharp(data).resize({
    width: MODEL_IMAGE_MAX_EDGE,
    height: MODEL_IMAGE_MAX_EDGE,
    fit: 'inside',
    withoutEnlargement: true,
  });
  const same = type === 'image/gif' ? resized.png() : resized;
  let out = await same.toBuffer({ resolveWithObject: true });
  let mimeType: ModelImage['mimeType'] = type === 'image/gif' ? 'image/png' : type;
  for (const quality of JPEG_QUALITIES) {
    if (out.data.length <= MODEL_IMAGE_MAX_BYTES) break;
    out = await sharp(out.data)
      .flatten({ background: '#ffffff' })
      .jpeg({ quality })
      .toBuffer({ resolveWithObject: true });
    mimeType = 'image/jpeg';
  }
  if (out.data.length > MODEL_IMAGE_MAX_BYTES) return null;
  return { id, mimeType, width: out.info.width, height: out.info.height, data: out.data.toString('base64') };
}

/** The one line an image becomes once it leaves the prompt: `[image <id> <mime> <w>x<h>, see artifacts]`. */
export function imageReference(image: Pick<ModelImage, 'id' | 'mimeType' | 'width' | 'height'>): string {
  return `[image ${image.id} ${image.mimeType} ${image.width}x${image.height}, see artifacts]`;
}

/**
 * Prompt tokens one image may cost, an upper bound for the reservation (docs/models.md, "Money"),
 * whichever provider runs:
 * - Anthropic: about width × height / 750 tokens for an image within 1,568 px
 *   (docs.anthropic.com/en/docs/build-with-claude/vision, "Calculate image costs");
 * - Gemini 2.x: 258 tokens when both sides are at most 384 px, else 258 per 768×768 tile
 *   (ai.google.dev/gemini-api/docs/tokens, "Multimodal tokens"); Gemini 3 at its default (high)
 *   media resolution: up to 1,120 tokens per image (ai.google.dev/gemini-api/docs/media-resolution).
 * Rounded up and padded by 10%: an estimate below the bill could let a call cost more than it reserved.
 */
export function imageTokenBound(width: number, height: number): number {
  const anthropic = Math.ceil((width * height) / 750);
  const tiles = width <= 384 && height <= 384 ? 1 : Math.ceil(width / 768) * Math.ceil(height / 768);
  const gemini = Math.max(258 * tiles, 1120);
  return Math.ceil(Math.max(anthropic, gemini) * 1.1);
}
