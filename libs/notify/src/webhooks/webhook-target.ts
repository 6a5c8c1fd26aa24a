import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { DomainError } from '@vigil/tasks';

export class WebhookTargetError extends DomainError {}

/**
 * Addresses a webhook must not reach: loopback, private, link-local (cloud metadata), CGNAT,
 * multicast and reserved ranges. BlockList also matches IPv4-mapped IPv6 (::ffff:127.0.0.1,
 * which URL parsing rewrites to ::ffff:7f00:1) against the IPv4 ranges.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  return BLOCKED.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
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
