import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { DomainError } from '@vigil/tasks';

export class WebhookTargetError extends DomainError {}

function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 6) {
    const lower = address.toLowerCase();
    if (lower === '::1' || lower === '::') return true;
    if (lower.startsWith('::ffff:')) return isPrivateAddress(lower.slice(7));
    return /^(fc|fd|fe8|fe9|fea|feb)/.test(lower);
  }
  const [a, b] = address.split('.').map(Number);
  return (
    a === 10 ||
    a === 127 ||
    a === 0 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

/**
 * Refuses webhook targets on loopback, private or link-local addresses (SSRF), unless the operator
 * allowed them. Names are resolved so a public-looking host that points inward is refused too.
 */
export async function assertWebhookTarget(url: string, allowPrivate: boolean): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookTargetError('notify.webhookUrl must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new WebhookTargetError('notify.webhookUrl must use http or https');
  }
  if (parsed.username || parsed.password)
    throw new WebhookTargetError('notify.webhookUrl must not carry credentials');
  if (allowPrivate) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw new WebhookTargetError(`notify.webhookUrl host ${host} does not resolve`);
  }
  if (host === 'localhost' || addresses.some(isPrivateAddress)) {
    throw new WebhookTargetError(
      `notify.webhookUrl points to a private or loopback address (${host}); set WEBHOOK_ALLOW_PRIVATE=true to allow it`,
    );
  }
}
