import { ConfigError, loadConfig } from './index';

describe('loadConfig', () => {
  it('applies the defaults of the design contract', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      keyPrefix: 'vigil',
      shards: 1,
      port: 3000,
      heartbeatIntervalMs: 30_000,
      watcherIntervalMs: 60_000,
      tenantFairShare: true,
      staleAfterMs: 120_000,
      userUpdateIntervalMs: 120_000,
      sliceMaxSteps: 14,
      taskMaxSlices: 24,
      taskMaxDurationMs: 3_600_000,
      maxConsecutiveErrors: 3,
      loopRepeatLimit: 5,
      loopIdleCalls: 20,
      retryPolicy: ['opus', 'gemini', 'opus', 'gemini'],
      taskBudgetUsd: 3,
      globalSpendLimitUsd: undefined,
    });
  });

  it.each([
    [{ STALE_AFTER_MS: 'abc' }, /STALE_AFTER_MS must be an integer/],
    [
      { HEARTBEAT_INTERVAL_MS: '5000', STALE_AFTER_MS: '5000' },
      /STALE_AFTER_MS \(5000\) must be larger than HEARTBEAT_INTERVAL_MS/,
    ],
    [{ SHARDS: '0' }, /SHARDS must be between 1/],
    [{ RETRY_POLICY: 'opus,gpt' }, /RETRY_POLICY may only name/],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL must use redis:/],
    [{ API_KEYS: 'tenant-without-key' }, /API_KEYS must be/],
    [{ KEY_PREFIX: 'a{b}' }, /KEY_PREFIX may use/],
    [{ TASK_BUDGET_USD: '-1' }, /TASK_BUDGET_USD must be at least 0/],
    [{ WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /WEBHOOK_ALLOW_PRIVATE must be true or false/],
    [{ TENANT_FAIR_SHARE: 'fair' }, /TENANT_FAIR_SHARE must be true or false/],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT must be json or pretty/],
    [{ LOOP_REPEAT_LIMIT: '1' }, /LOOP_REPEAT_LIMIT must be between 2/],
    [{ LOOP_IDLE_CALLS: 'many' }, /LOOP_IDLE_CALLS must be an integer/],
    [
      { REDLOCK_URLS: 'redis://a:6379, b:6379' },
      /REDLOCK_URLS\[1\] must be a URL|REDLOCK_URLS\[1\] must use/,
    ],
  ])('rejects %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads REDLOCK_URLS as a list of Redis URLs', () => {
    expect(loadConfig({ REDLOCK_URLS: 'redis://a:6379, rediss://b:6380' }).redlockUrls).toEqual([
      'redis://a:6379',
      'rediss://b:6380',
    ]);
  });

  it('parses tenants and keys', () => {
    const config = loadConfig({ API_KEYS: 'acme:acme-secret-1, beta:beta-secret-2' });
    expect(config.apiKeys).toEqual([
      { tenantId: 'acme', key: 'acme-secret-1' },
      { tenantId: 'beta', key: 'beta-secret-2' },
    ]);
    expect(config.developmentDefaults).toEqual(['WEBHOOK_SECRET']);
    expect(loadConfig({}).developmentDefaults).toEqual(['API_KEYS', 'WEBHOOK_SECRET']);
  });

  it('bounds the API: rate limit, active tasks, SSE streams, metrics token', () => {
    expect(loadConfig({})).toMatchObject({
      rateLimitPerMinute: 120,
      maxActiveTasksPerTenant: undefined,
      maxSseStreamsPerKey: 10,
      metricsToken: undefined,
    });
    expect(
      loadConfig({
        RATE_LIMIT_PER_MINUTE: '30',
        MAX_ACTIVE_TASKS_PER_TENANT: '5',
        MAX_SSE_STREAMS_PER_KEY: '2',
        METRICS_TOKEN: 'scrape-me',
      }),
    ).toMatchObject({
      rateLimitPerMinute: 30,
      maxActiveTasksPerTenant: 5,
      maxSseStreamsPerKey: 2,
      metricsToken: 'scrape-me',
    });
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '0' })).toThrow(
      /RATE_LIMIT_PER_MINUTE must be between 1 and/,
    );
    expect(() => loadConfig({ MAX_ACTIVE_TASKS_PER_TENANT: 'lots' })).toThrow(
      /MAX_ACTIVE_TASKS_PER_TENANT must be an integer, got "lots"/,
    );
  });
});
