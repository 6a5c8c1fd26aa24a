import { createHash } from 'node:crypto';
import { invalidParam, paramRequired } from '../errors';
import { optionalString } from '../params';
import { metaTime } from '../store';
import type { AdImageRecord } from '../types';
import type { CreateContext } from './context';

const MAX_IMAGE_BYTES = 30 * 1024 * 1024;

/** Sniffs the image type from magic bytes; Meta rejects uploads that are not images. */
export function imageMime(bytes: Buffer): string | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]))) {
    return 'image/png';
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (bytes.subarray(0, 2).toString('latin1') === 'BM') return 'image/bmp';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  ) {
    return 'image/webp';
  }
  return undefined;
}

function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (imageMime(bytes) !== 'image/png' || bytes.length < 24) return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

function decodeBase64(text: string): Buffer {
  const compact = text.replace(/[\r\n]/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    throw invalidParam('bytes', 'must be base64-encoded image data');
  }
  return Buffer.from(compact, 'base64');
}

/** `POST /act_<id>/adimages` with `bytes`. Identical bytes map to the same hash and the same image. */
export function uploadImage({ store, accountId, params, origin }: CreateContext): {
  images: Record<string, { hash: string; url: string }>;
} {
  const base64 = optionalString(params, 'bytes');
  if (base64 === undefined) throw paramRequired('bytes');
  const bytes = decodeBase64(base64);
  if (bytes.length > MAX_IMAGE_BYTES) throw invalidParam('bytes', 'image is too large');
  if (!imageMime(bytes))
    throw invalidParam('bytes', 'data is not a supported image (jpg, png, gif, bmp, webp)');
  const name = optionalString(params, 'name');
  const hash = createHash('md5').update(bytes).digest('hex');
  let record = store.imageByHash(accountId, hash);
  if (!record) {
    const now = metaTime();
    const image: AdImageRecord = {
      kind: 'adimage',
      id: `${accountId}:${hash}`,
      seq: store.nextIdentity().seq,
      account_id: accountId,
      name: name ?? `${hash}.${(imageMime(bytes) as string).slice(6)}`,
      hash,
      url: `${origin}/__sandbox/images/${accountId}/${hash}`,
      status: 'ACTIVE',
      bytes,
      created_time: now,
      updated_time: now,
      ...pngSize(bytes),
    };
    record = store.add(image);
  }
  return { images: { [name ?? 'bytes']: { hash: record.hash, url: record.url } } };
}
