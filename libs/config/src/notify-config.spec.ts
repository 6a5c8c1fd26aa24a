import { ConfigError, loadConfig } from './index';

describe('notifier configuration', () => {
  it('has bounded, documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      webhookDefaultUrl: undefined,
      webhookMaxAttempts: 12,
      webhookBackoffMs: 1_000,
      webhookTimeoutMs: 10_000,
      webhookConcurrency: 16,
      notifierClaimIdleMs: 30_000,
      sseHeartbeatMs: 15_000,
    });
    expect(loadConfig({ WEBHOOK_DEFAULT_URL: 'https://hooks.example.com/vigil/' }).webhookDefaultUrl).toBe(
      'https://hooks.example.com/vigil',
    );
  });

  it.each([
    [{ WEBHOOK_DEFAULT_URL: 'ftp://hooks.example.com' }, /WEBHOOK_DEFAULT_URL must use http: or https:/],
    [{ WEBHOOK_DEFAULT_URL: 'not a url' }, /WEBHOOK_DEFAULT_URL must be a URL/],
    [{ WEBHOOK_MAX_ATTEMPTS: '0' }, /WEBHOOK_MAX_ATTEMPTS must be between 1 and 100/],
    [{ WEBHOOK_BACKOFF_MS: 'soon' }, /WEBHOOK_BACKOFF_MS must be an integer/],
    [{ WEBHOOK_TIMEOUT_MS: '10' }, /WEBHOOK_TIMEOUT_MS must be between 100/],
    [{ NOTIFIER_CLAIM_IDLE_MS: '5' }, /NOTIFIER_CLAIM_IDLE_MS must be between 100/],
    [{ SSE_HEARTBEAT_MS: '0' }, /SSE_HEARTBEAT_MS must be between 100/],
  ])('rejects %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
