import { MetaRequestAbortedError, MetaTransportError } from './errors';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** Error codes meaning the connection was never established, so the request was certainly not delivered. */
const NOT_DELIVERED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    const { code, errors, cause } = current as { code?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof code === 'string') return code;
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else current = cause;
  }
  return undefined;
}

/**
 * One HTTP exchange with a per-attempt timeout. The caller's signal cancels the request at once.
 * Throws MetaRequestAbortedError (caller abort) or MetaTransportError (timeout, connection, unreadable body).
 */
export async function sendOnce(
  fetchImpl: typeof fetch,
  request: HttpRequest,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<HttpResponse> {
  if (signal?.aborted) throw new MetaRequestAbortedError({ cause: signal.reason });
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = (): void => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let stage: 'connect' | 'body' = 'connect';
  try {
    const response = await fetchImpl(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    stage = 'body';
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  } catch (err) {
    if (signal?.aborted) throw new MetaRequestAbortedError({ cause: signal.reason });
    if (timedOut) {
      throw new MetaTransportError('timeout', `${request.method} timed out after ${timeoutMs} ms`, true, {
        cause: err,
      });
    }
    const code = errorCode(err);
    const delivered = stage === 'body' || !code || !NOT_DELIVERED_CODES.has(code);
    const kind = stage === 'body' ? 'bad_response' : 'connection';
    throw new MetaTransportError(
      kind,
      `${request.method} failed: ${code ?? (err as Error).message}`,
      delivered,
      {
        cause: err,
      },
    );
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
