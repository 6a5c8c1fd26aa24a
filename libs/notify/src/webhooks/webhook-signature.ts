import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Vigil-Signature';
export const MESSAGE_ID_HEADER = 'Vigil-Message-Id';
export const DEFAULT_TOLERANCE_SEC = 300;

function hmacHex(secret: string, timestampSec: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestampSec}.`).update(body).digest('hex');
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as in Stripe's scheme. */
export function signWebhook(body: string | Buffer, secret: string, timestampSec: number): string {
  return `t=${timestampSec},v1=${hmacHex(secret, timestampSec, body)}`;
}

export interface VerifyWebhookOptions {
  /** Oldest (or most future) timestamp accepted, in seconds from now; default 300. */
  toleranceSec?: number;
  /** Current time in milliseconds (Date.now() by default); for tests and replays. */
  now?: number;
}

/**
 * For receivers: true when `header` (the Vigil-Signature value) signs exactly `rawBody` with
 * `secret` and its timestamp is within the tolerance. Verify the raw bytes as received, before any
 * JSON parsing; several `v1=` values (during a secret rotation) are accepted if one matches.
 */
export function verifyWebhookSignature(
  header: string | null | undefined,
  rawBody: string | Buffer,
  secret: string,
  options: VerifyWebhookOptions = {},
): boolean {
  if (!header || !secret) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === 't' && /^\d{1,12}$/.test(value ?? '')) timestamp = Number(value);
    if (name === 'v1' && /^[0-9a-f]{64}$/.test(value ?? '')) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  const nowSec = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSec - timestamp) > (options.toleranceSec ?? DEFAULT_TOLERANCE_SEC)) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, rawBody), 'hex');
  return signatures.some((signature) => timingSafeEqual(Buffer.from(signature, 'hex'), expected));
}
