import { InvalidObjectKeyError } from './object-keys';

/** S3's own bound on a key, in bytes; the file driver keeps the same. */
const MAX_KEY_BYTES = 1024;
/** One segment of a key: a file name on the file driver. */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

/**
 * Every driver checks the key it is handed, whoever built it: defense in depth behind ObjectKeys,
 * so a raw `../x`, an absolute path, an empty or dotted segment, a percent-escape or a backslash
 * can never name anything outside the store's root or prefix. A key is '/'-separated segments of
 * A-Z a-z 0-9 . _ -, none empty and none starting with a dot (which also keeps the file driver's
 * temporary files out of every listing).
 */
export function checkedObjectKey(key: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_BYTES)
    throw new InvalidObjectKeyError('object key', String(key));
  for (const segment of key.split('/'))
    if (!SEGMENT.test(segment)) throw new InvalidObjectKeyError('object key', key);
  return key;
}

/**
 * A listing prefix: empty (everything), or the start of a key — whole segments and then possibly
 * the start of one, so `archive/t1/` and `archive/t1/tsk_` are both prefixes. The same characters
 * as a key; no empty or dotted segment before the last '/'.
 */
export function checkedListPrefix(prefix: string): string {
  if (typeof prefix !== 'string' || prefix.length > MAX_KEY_BYTES)
    throw new InvalidObjectKeyError('object key prefix', String(prefix));
  if (prefix === '') return prefix;
  const segments = prefix.split('/');
  const last = segments.pop()!;
  for (const segment of segments)
    if (!SEGMENT.test(segment)) throw new InvalidObjectKeyError('object key prefix', prefix);
  if (last !== '' && !SEGMENT.test(last)) throw new InvalidObjectKeyError('object key prefix', prefix);
  return prefix;
}

/** Whether a file or directory name could be a segment of a key (anything else is never an object). */
export function isKeySegment(name: string): boolean {
  return SEGMENT.test(name);
}

/** A listing's page size: a positive whole number. */
export function checkedLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`a listing's limit must be a positive integer, got ${limit}`);
  return limit;
}
