import { backoffDelay, isRetryableApiError, serverSuggestedWaitMs } from './retry-policy';

describe('retry policy', () => {
  it('classifies Graph error codes', () => {
    for (const code of [1, 2, 4, 17, 32, 341, 613, 80004]) expect(isRetryableApiError(code, 400)).toBe(true);
    expect(isRetryableApiError(100, 400)).toBe(false);
    expect(isRetryableApiError(190, 400)).toBe(false);
    expect(isRetryableApiError(100, 500)).toBe(false);
    expect(isRetryableApiError(200, 403)).toBe(false);
    expect(isRetryableApiError(9999, 503)).toBe(true);
    expect(isRetryableApiError(9999, 400, true)).toBe(true);
  });

  it('backs off exponentially with jitter in [base/2, base], longer for rate limits, capped', () => {
    const opts = { backoffMs: 100, maxBackoffMs: 1000, rateLimitFactor: 4, random: () => 0 };
    expect([0, 1, 2, 3, 4].map((a) => backoffDelay(a, false, opts))).toEqual([50, 100, 200, 400, 500]);
    expect(backoffDelay(0, true, opts)).toBe(200);
    expect(backoffDelay(0, false, { ...opts, random: () => 0.999999 })).toBe(100);
  });

  it('reads server-suggested waits from usage headers and Retry-After', () => {
    const headers = (h: Record<string, string>): Headers => new Headers(h);
    expect(serverSuggestedWaitMs(headers({}))).toBeUndefined();
    const buc = { '1': [{ type: 'ads_management', call_count: 100, estimated_time_to_regain_access: 2 }] };
    expect(serverSuggestedWaitMs(headers({ 'x-business-use-case-usage': JSON.stringify(buc) }))).toBe(
      120_000,
    );
    expect(serverSuggestedWaitMs(headers({ 'x-ad-account-usage': '{"reset_time_duration":30}' }))).toBe(
      30_000,
    );
    expect(serverSuggestedWaitMs(headers({ 'retry-after': '3', 'x-app-usage': 'not json' }))).toBe(3_000);
    expect(
      serverSuggestedWaitMs(
        headers({ 'x-business-use-case-usage': '{"1":[{"estimated_time_to_regain_access":0}]}' }),
      ),
    ).toBeUndefined();
  });
});
