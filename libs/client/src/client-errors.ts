/** What the API answered instead of a success: its `{statusCode, error, message}` body, typed. */
export class VigilApiError extends Error {
  override readonly name = 'VigilApiError';

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The status's name as the API says it (`Not Found`, `Conflict`, …). */
    readonly error: string,
    message: string,
    /** The request that was refused, e.g. `GET /v1/tasks/tsk_1`. */
    readonly request: string,
    /** The whole error body (a 409 from a control carries `currentStatus`). */
    readonly body: Record<string, unknown> = {},
    /** `Retry-After` in seconds, on a 429 or 503. */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }

  /** On a 409 from a control: the status the task is in. */
  get currentStatus(): string | undefined {
    return typeof this.body.currentStatus === 'string' ? this.body.currentStatus : undefined;
  }
}

/** Nothing answered at the API's address (refused, unknown host, reset before an answer). */
export class VigilConnectionError extends Error {
  override readonly name = 'VigilConnectionError';

  constructor(
    readonly baseUrl: string,
    /** The system error code when there is one (`ECONNREFUSED`, `ENOTFOUND`, …). */
    readonly code: string | undefined,
    cause: unknown,
  ) {
    super(`cannot reach the Vigil API at ${baseUrl}${code ? ` (${code})` : ''}`, { cause });
  }
}

/** The system error code behind a failed fetch (undici puts it on the cause, sometimes nested). */
export function systemErrorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Builds the typed error from a refused response (a body that is not JSON becomes the message). */
export async function apiErrorOf(response: Response, request: string): Promise<VigilApiError> {
  const text = await response.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    body = { message: text.slice(0, 500) };
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return new VigilApiError(
    response.status,
    typeof body.error === 'string' ? body.error : response.statusText || `HTTP ${response.status}`,
    typeof body.message === 'string' && body.message ? body.message : `HTTP ${response.status}`,
    request,
    body,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}
