/** Which Graph errors are worth retrying, and how long to wait before doing so. */

/** Throttling codes: app (4), user (17), page (32), application limit (341), API (613), business use case (80xxx). */
export const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([
  4, 17, 32, 341, 613, 80000, 80001, 80002, 80003, 80004, 80005, 80006, 80008, 80009, 80014,
]);

/** Temporary server-side failures: unknown error (1), service temporarily unavailable (2). */
export const TRANSIENT_CODES: ReadonlySet<number> = new Set([1, 2]);

/** Invalid parameter (100) and invalid token (190): retrying cannot help. */
export const FAIL_FAST_CODES: ReadonlySet<number> = new Set([100, 190]);

export function isRateLimit(code: number, httpStatus: number): boolean {
  return RATE_LIMIT_CODES.has(code) || httpStatus === 429;
}

export function isRetryableApiError(code: number, httpStatus: number, isTransient?: boolean): boolean {
  if (FAIL_FAST_CODES.has(code)) return false;
  return (
    TRANSIENT_CODES.has(code) || isRateLimit(code, httpStatus) || httpStatus >= 500 || isTransient === true
  );
}

export interface BackoffOptions {
  backoffMs: number;
  maxBackoffMs: number;
  rateLimitFactor: number;
  random: () => number;
}

/** Exponential backoff with jitter in [base/2, base); rate limits start from a larger base. */
export function backoffDelay(attempt: number, rateLimited: boolean, opts: BackoffOptions): number {
  const base = Math.min(
    opts.maxBackoffMs,
    opts.backoffMs * 2 ** attempt * (rateLimited ? opts.rateLimitFactor : 1),
  );
  return Math.round(base / 2 + opts.random() * (base / 2));
}

function parseJson(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Wait suggested by the server, in ms: `Retry-After`, `x-business-use-case-usage`
 * (`estimated_time_to_regain_access`, minutes) or `x-ad-account-usage` (`reset_time_duration`, seconds).
 * Undefined when none says to wait.
 */
export function serverSuggestedWaitMs(headers: Headers): number | undefined {
  const waits: number[] = [];
  const retryAfter = Number(headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) waits.push(retryAfter * 1000);
  const buc = parseJson(headers.get('x-business-use-case-usage'));
  if (buc && typeof buc === 'object') {
    for (const entries of Object.values(buc as Record<string, unknown>)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries as { estimated_time_to_regain_access?: unknown }[]) {
        const minutes = Number(entry?.estimated_time_to_regain_access);
        if (Number.isFinite(minutes) && minutes > 0) waits.push(minutes * 60_000);
      }
    }
  }
  const account = parseJson(headers.get('x-ad-account-usage')) as
    { reset_time_duration?: unknown } | undefined;
  const reset = Number(account?.reset_time_duration);
  if (Number.isFinite(reset) && reset > 0) waits.push(reset * 1000);
  return waits.length > 0 ? Math.max(...waits) : undefined;
}
