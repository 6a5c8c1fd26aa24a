import {
  AnthropicFake,
  AppProcess,
  HttpClient,
  RedisTestContext,
  VigilStack,
  WebhookReceiver,
} from '@vigil/testing';
import { SseClient } from '../../support/sse-client';
import { sample } from '../../support/prometheus-text';

/** Distinctive values: any of them in any app's output is a leak. */
const SECRETS = {
  API_KEYS: 'apikey-SECRET-a1b2c3d4',
  ANTHROPIC_API_KEY: 'sk-ant-SECRET-e5f6g7h8',
  GEMINI_API_KEY: 'gemini-SECRET-i9j0k1l2',
  META_ACCESS_TOKEN: 'meta-SECRET-m3n4o5p6',
  WEBHOOK_SECRET: 'whsec-SECRET-q7r8s9t0',
  ADMIN_PASSWORD: 'admin-SECRET-u1v2w3x4',
  METRICS_TOKEN: 'metrics-SECRET-y5z6a7b8',
  REDIS_PASSWORD: 'redispw-SECRET-c9d0e1f2',
};

/**
 * Every app as a process, with every secret set to a distinctive value and debug logging: a task
 * runs through (the real Anthropic SDK against a loopback fake, so the model key is in use), its
 * webhook is signed, the API is called with the key, Bull Board with the admin password, /metrics
 * with its token — and no app's output holds any of the secrets. The same run shows /metrics
 * before and after, and its 401 without the token on every app.
 */
describe('secrets never logged; metrics of a run', () => {
  const ctx = new RedisTestContext('ops-secrets');
  const fake = new AnthropicFake({ apiKey: SECRETS.ANTHROPIC_API_KEY });
  const receiver = new WebhookReceiver();
  let stack: VigilStack;
  let api: HttpClient;
  let hookUrl: string;
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    const anthropicUrl = await fake.listen();
    hookUrl = await receiver.listen();
    const redisUrl = new URL(ctx.config.redisUrl);
    redisUrl.password = SECRETS.REDIS_PASSWORD;
    stack = new VigilStack(ctx, {
      REDIS_URL: redisUrl.toString(),
      REDLOCK_URLS: redisUrl.toString(),
      API_KEYS: `acme:${SECRETS.API_KEYS}`,
      ANTHROPIC_API_KEY: SECRETS.ANTHROPIC_API_KEY,
      ANTHROPIC_BASE_URL: anthropicUrl,
      GEMINI_API_KEY: SECRETS.GEMINI_API_KEY,
      GEMINI_BASE_URL: 'http://127.0.0.1:9',
      META_ACCESS_TOKEN: SECRETS.META_ACCESS_TOKEN,
      WEBHOOK_SECRET: SECRETS.WEBHOOK_SECRET,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ADMIN_PASSWORD: SECRETS.ADMIN_PASSWORD,
      METRICS_TOKEN: SECRETS.METRICS_TOKEN,
      RETRY_POLICY: 'opus',
      LOG_LEVEL: 'debug',
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '5000',
      WATCHER_INTERVAL_MS: '500',
    });
    for (const app of ['api', 'worker', 'watcher', 'notifier'] as const)
      ports[app] = (await stack.start(app)).port!;
    // A second API logging for people (pino-pretty, a transport in a worker thread): scrubbed too.
    ports.prettyApi = (await stack.start('api', { LOG_FORMAT: 'pretty' })).port!;
    api = new HttpClient(`http://127.0.0.1:${ports.api}`, SECRETS.API_KEYS);
  });

  afterAll(async () => {
    await stack.stopAll();
    await fake.close();
    await receiver.close();
    await ctx.close();
  });

  const scrape = async (app: string) => {
    const response = await fetch(`http://127.0.0.1:${ports[app]}/metrics`, {
      headers: { authorization: `Bearer ${SECRETS.METRICS_TOKEN}` },
    });
    expect(response.status).toBe(200);
    return response.text();
  };

  it('protects /metrics on every app with METRICS_TOKEN', async () => {
    for (const app of Object.keys(ports)) {
      for (const headers of [{}, { authorization: 'Bearer not-the-token' }] as Record<string, string>[]) {
        const response = await fetch(`http://127.0.0.1:${ports[app]}/metrics`, { headers });
        expect({ app, status: response.status }).toEqual({ app, status: 401 });
      }
      expect(await scrape(app)).toContain('process_cpu_seconds_total');
      // No app says what it is built with.
      expect((await fetch(`http://127.0.0.1:${ports[app]}/health`)).headers.get('x-powered-by')).toBeNull();
    }
  });

  it('runs a task through with every secret in use, the metrics following it, and no secret in any output', async () => {
    const before = { api: await scrape('api'), worker: await scrape('worker') };
    const created = await api.post(
      '/v1/tasks',
      { kind: 'noop', input: { steps: 3 }, notify: { webhookUrl: `${hookUrl}/hooks` } },
      { 'idempotency-key': 'secrets-run-1' },
    );
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const events = await SseClient.open(`${api.baseUrl}/v1/tasks/${id}/events`, {
      authorization: `Bearer ${SECRETS.API_KEYS}`,
    });
    const task = await stack.waitForTask(id, (t) => t.status === 'completed', 30_000, 'completion');
    expect(task.provider).toBe('anthropic');
    expect(fake.calls).toBeGreaterThanOrEqual(4);
    await receiver.waitFor(
      () => receiver.received.some((hook) => hook.rawBody.includes('"completed"')),
      15_000,
    );
    expect(receiver.received[0].headers).toHaveProperty('vigil-signature');
    await events.close();

    // Reads, a conversation, a malformed body holding the key, a wrong key, the admin board.
    expect((await api.get(`/v1/tasks/${id}`)).status).toBe(200);
    expect((await api.get(`/v1/tasks/${id}/actions`)).status).toBe(200);
    expect((await api.get(`/v1/tasks/${id}/messages`)).status).toBe(200);
    expect((await api.post('/v1/conversations/conv-s/messages', { text: `how is ${id}?` })).status).toBe(201);
    const malformed = await api.post('/v1/tasks', `{"title": "${SECRETS.API_KEYS}" ,,`);
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).not.toContain(SECRETS.API_KEYS);
    expect((await api.withKey(`${SECRETS.API_KEYS}x`).get('/v1/tasks')).status).toBe(401);
    const board = await fetch(`${api.baseUrl}/admin/queues/api/queues`, {
      headers: {
        authorization: `Basic ${Buffer.from(`admin:${SECRETS.ADMIN_PASSWORD}`).toString('base64')}`,
      },
    });
    expect(board.status).toBe(200);
    const pretty = new HttpClient(`http://127.0.0.1:${ports.prettyApi}`, SECRETS.API_KEYS);
    expect((await pretty.get(`/v1/tasks/${id}`)).status).toBe(200);
    expect((await pretty.withKey(`${SECRETS.API_KEYS}x`).get('/v1/tasks')).status).toBe(401);
    expect((await pretty.post('/v1/tasks', `{"title": "${SECRETS.API_KEYS}" ,,`)).status).toBe(400);

    const after = { api: await scrape('api'), worker: await scrape('worker') };
    const delta = (app: 'api' | 'worker', name: string, labels: Record<string, string>) =>
      sample(after[app], name, labels) - sample(before[app], name, labels);
    expect(sample(before.api, 'vigil_tasks', { tenant: 'acme', status: 'completed' })).toBe(0);
    expect(sample(after.api, 'vigil_tasks', { tenant: 'acme', status: 'completed' })).toBe(1);
    expect(sample(after.api, 'vigil_active_tasks', { kind: 'noop' })).toBe(0);
    expect(sample(after.api, 'vigil_turn_queue_jobs', { state: 'waiting' })).toBe(0);
    expect(sample(after.api, 'vigil_turn_queue_jobs', { state: 'active' })).toBe(0);
    expect(
      delta('api', 'vigil_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/tasks',
        status: '201',
      }),
    ).toBe(1);
    expect(
      delta('api', 'vigil_http_request_duration_seconds_count', {
        route: '/v1/tasks/:id/events',
        status: '200',
      }),
    ).toBe(1);
    expect(delta('worker', 'vigil_slices_total', {})).toBeGreaterThanOrEqual(1);

    // Shut everything down (shutdown logs count too), then read every line every app wrote.
    await stack.stopAll();
    const outputs = stack.processes.map((process) => ({ app: process.name, text: process.text() }));
    expect(outputs.map((output) => output.app).sort()).toEqual([
      'api',
      'api',
      'notifier',
      'watcher',
      'worker',
    ]);
    const forms = Object.entries(SECRETS).flatMap(([name, value]) => [
      { name, value },
      { name: `${name} (URL-encoded)`, value: encodeURIComponent(value) },
    ]);
    forms.push({
      name: 'ADMIN_PASSWORD (basic auth)',
      value: Buffer.from(`admin:${SECRETS.ADMIN_PASSWORD}`).toString('base64'),
    });
    const leaks = outputs.flatMap(({ app, text }) =>
      forms.filter(({ value }) => text.includes(value)).map(({ name }) => `${name} in ${app}`),
    );
    expect(leaks).toEqual([]);
    // The output is real: the apps logged requests (with the header redacted) and the run.
    const apiText = outputs[0].text;
    expect(apiText).toContain('"authorization":"[redacted]"');
    expect(apiText).toContain(`/v1/tasks/${id}`);
    expect(outputs.every(({ text }) => text.length > 500)).toBe(true);
  });

  it('keeps a secret out of a config error that quotes the bad value', async () => {
    // An unparsable REDIS_URL is quoted in the error; its password is not.
    const process = AppProcess.start(
      'api',
      ctx.env({
        PORT: '0',
        REDIS_URL: `redis://:${SECRETS.REDIS_PASSWORD}@127.0.0.1:notaport`,
        ADMIN_PASSWORD: SECRETS.ADMIN_PASSWORD,
      }),
    );
    expect((await process.exited()).code).toBe(78);
    expect(process.text()).toMatch(
      /invalid configuration: REDIS_URL must be a URL, got "redis:\/\/\[redacted\]@127\.0\.0\.1:notaport"/,
    );
    expect(process.text()).not.toContain(SECRETS.REDIS_PASSWORD);
  });
});
