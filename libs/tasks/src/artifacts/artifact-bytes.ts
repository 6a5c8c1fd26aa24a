import { createHash } from 'node:crypto';

/** The raster formats that are ever shown inline or to a model (docs/api.md, "Artifacts"). */
export type RasterType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

/** An artifact's id: the lowercase hex SHA-256 of its bytes. */
export function artifactIdOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0): boolean =>
  bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte);

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

/**
 * The raster format the bytes are, by their magic bytes — never by what a tool said they are: a
 * tool's output is untrusted, and an SVG or HTML page labelled `image/png` must not be shown as one.
 * Null for anything but PNG, JPEG, WebP and GIF.
 */
export function rasterTypeOf(bytes: Uint8Array): RasterType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return null;
}

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/**
 * A tool's declared content type as an artifact keeps it: `type/subtype`, lowercased, parameters
 * dropped; anything that is not one becomes `application/octet-stream`. It is served with
 * `nosniff`, and inline only when the bytes are a raster image of that type.
 */
export function artifactMimeType(declared: string | undefined | null): string {
  const type = (declared ?? '').split(';', 1)[0].trim().toLowerCase();
  return MIME_TYPE.test(type) ? type : 'application/octet-stream';
}
