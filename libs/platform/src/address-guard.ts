import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * The outbound-request guard (SSRF) that webhooks, HTTP tools and `http_json` checks share
 * (docs/missions.md, "Tools from outside"): loopback, private, link-local (cloud metadata),
 * CGNAT, multicast and reserved ranges are refused unless the operator allowed them. BlockList also
 * matches IPv4-mapped IPv6 (::ffff:127.0.0.1, which URL parsing rewrites to ::ffff:7f00:1) against
 * the IPv4 ranges. Callers word the refusal for their own setting (a variable name, a field name).
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

/** Why an outbound URL was refused; undefined from checkOutboundTarget means it may be reached. */
export type OutboundRefusal =
  | { reason: 'invalid_url' }
  | { reason: 'protocol' }
  | { reason: 'credentials' }
  | { reason: 'unresolvable'; host: string }
  | { reason: 'private'; host: string };

/**
 * Checks an http(s) URL before a request: no credentials in it, and (unless allowPrivate) its host
 * resolves to public addresses only, so a public-looking name that points inward is refused too.
 */
export async function checkOutboundTarget(
  url: string,
  allowPrivate: boolean,
): Promise<OutboundRefusal | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { reason: 'invalid_url' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { reason: 'protocol' };
  if (parsed.username || parsed.password) return { reason: 'credentials' };
  if (allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return { reason: 'unresolvable', host };
  }
  if (host === 'localhost' || addresses.some(isPrivateAddress)) return { reason: 'private', host };
  return undefined;
}
