import { checkOutboundTarget, scrubSecrets } from '@vigil/platform';
import { boundText } from '../common/bounded-text';
import { CallDeadline } from '../common/call-deadline';
import { ToolCallError } from '../tool-gateway';

/** How much of an error response goes back to the model. */
const ERROR_BODY_LIMIT = 500;

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface OutboundResponse {
  status: number;
  /** The JSON body, the text when it is not JSON, null when empty (a binary body: null). */
  body: unknown;
  text: string;
  /** A binary body (`image/*`, or a type that is not text, JSON or XML): its bytes and content type. */
  binary?: { data: Buffer; contentType: string };
}

/** A body read as text; any other declared type is bytes (docs/api.md, "Artifacts"). */
const TEXTUAL =
  /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded|problem\+json)\b|application\/[^;]*\+(json|xml)\b)/i;

function isBinaryType(contentType: string | null): contentType is string {
  if (!contentType) return false;
  const type = contentType.trim().toLowerCase();
  return type.startsWith('image/') || !TEXTUAL.test(type);
}

/**
 * One HTTP request of a tool (docs/missions.md, "Tools from outside"): the shared SSRF guard
 * first (private and loopback targets refused unless TOOLS_ALLOW_PRIVATE), redirects not followed
 * (a redirect could lead past the guard), the deadline and the caller's signal on the fetch, a
 * non-2xx answer a ToolCallError with its status and a bounded excerpt of its body.
 */
export async function sendOutbound(
  what: string,
  request: OutboundRequest,
  deadline: CallDeadline,
  allowPrivate: boolean,
): Promise<OutboundResponse> {
  let response: Response;
  let text = '';
  let binary: OutboundResponse['binary'];
  try {
    const refusal = await deadline.race(checkOutboundTarget(request.url, allowPrivate));
    if (refusal) throw new ToolCallError(`${what}: ${refusalText(refusal)}`);
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      redirect: 'manual',
      signal: deadline.signal,
    });
    const contentType = response.headers.get('content-type');
    const ok = response.status >= 200 && response.status <= 299;
    if (ok && isBinaryType(contentType)) {
      const data = Buffer.from(await response.arrayBuffer());
      if (data.length > 0) binary = { data, contentType };
    } else text = await response.text();
  } catch (error) {
    throw deadline.failure(what, error);
  } finally {
    deadline.dispose();
  }
  if (response.status < 200 || response.status > 299) {
    const excerpt = text.trim() ? `: ${boundText(scrubSecrets(text.trim()), ERROR_BODY_LIMIT)}` : '';
    throw new ToolCallError(`${what}: HTTP ${response.status} ${response.statusText}${excerpt}`.trim());
  }
  if (binary) return { status: response.status, body: null, text: '', binary };
  return { status: response.status, body: parseBody(text), text };
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function refusalText(refusal: NonNullable<Awaited<ReturnType<typeof checkOutboundTarget>>>): string {
  switch (refusal.reason) {
    case 'invalid_url':
      return 'the URL is not an absolute http(s) URL';
    case 'protocol':
      return 'the URL must use http or https';
    case 'credentials':
      return 'the URL must not carry credentials (put them in headers)';
    case 'unresolvable':
      return `the host ${refusal.host} does not resolve`;
    case 'private':
      return `the URL points to a private or loopback address (${refusal.host}); set TOOLS_ALLOW_PRIVATE=true to allow it`;
  }
}
