import { checkOutboundTarget } from '@vigil/platform';
import { exactRules } from '@vigil/kinds';
import { CheckUnavailableError, defineCheck } from '@vigil/kinds';
import type { MissionInput } from '../mission.input';
import { comparePointer } from './deep-equal-detail';
import { pointerProblem } from './json-pointer';

const MAX_URL_CHARS = 2048;
const MAX_BODY_BYTES = 1024 * 1024;
const TIMEOUT_MS = 15_000;

/** What is wrong with an http_json criterion's args, without touching the network. */
export function httpJsonArgsProblems(args: Record<string, unknown> | undefined): string[] {
  if (!args) return ['args must be {url, pointer}'];
  const problems = Object.keys(args)
    .filter((name) => name !== 'url' && name !== 'pointer')
    .map((name) => `args.${name} is not an argument of http_json (it takes url, pointer)`);
  const url = args.url;
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' && url.length <= MAX_URL_CHARS ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    problems.push(`args.url must be an absolute http(s) URL of at most ${MAX_URL_CHARS} characters`);
  else if (parsed.username || parsed.password) problems.push('args.url must not carry credentials');
  const pointer = pointerProblem(args.pointer);
  if (pointer) problems.push(`args.pointer ${pointer}`);
  return problems;
}

/**
 * Why `url` may not be fetched (SSRF), through the guard HTTP tools share: a private or loopback
 * target unless TOOLS_ALLOW_PRIVATE. Checked at creation and again before every fetch (a name may
 * point elsewhere by then).
 */
export async function privateTargetProblem(url: string, allowPrivate: boolean): Promise<string | null> {
  const refusal = await checkOutboundTarget(url, allowPrivate);
  if (!refusal) return null;
  switch (refusal.reason) {
    case 'invalid_url':
    case 'protocol':
      return 'is not an absolute http(s) URL';
    case 'credentials':
      return 'must not carry credentials';
    case 'unresolvable':
      return `host ${refusal.host} does not resolve`;
    case 'private':
      return `${refusal.host} is a private or loopback address; set TOOLS_ALLOW_PRIVATE=true to allow it`;
  }
}

/**
 * `http_json {args: {url, pointer}, expected}`: GET the URL (from the Watcher), and compare the
 * value at the JSON Pointer of its JSON body with `expected` by deep equality. A network failure
 * or a 5xx is "unavailable" (tried again later); any other non-2xx or a body that is not JSON fails.
 */
export const httpJsonCheck = defineCheck<MissionInput>(
  // Reads the endpoint, none of the runtime's record (CheckRules.reads).
  { ...exactRules<MissionInput>((args) => httpJsonArgsProblems(args)), reads: [] },
  async (criterion, context) => {
    const url = String(criterion.args?.url);
    const pointer = String(criterion.args?.pointer ?? '');
    const refused = await privateTargetProblem(url, context.services.config.toolsAllowPrivate);
    const fail = (detail: string) => ({
      check: criterion.check,
      expected: criterion.expected,
      actual: null,
      passed: false,
      detail,
    });
    if (refused) return fail(`http_json: ${refused}`);
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.any([context.signal, AbortSignal.timeout(TIMEOUT_MS)]),
      });
    } catch (error) {
      throw new CheckUnavailableError(`GET ${url} failed: ${String(error)}`);
    }
    if (response.status >= 500) throw new CheckUnavailableError(`GET ${url} answered ${response.status}`);
    if (!response.ok) return fail(`GET ${url} answered ${response.status}`);
    const text = await response.text();
    if (Buffer.byteLength(text) > MAX_BODY_BYTES)
      return fail(`GET ${url}: the body is over ${MAX_BODY_BYTES} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail(`GET ${url}: the body is not JSON`);
    }
    return comparePointer(criterion, body, pointer, `GET ${url}`);
  },
);
