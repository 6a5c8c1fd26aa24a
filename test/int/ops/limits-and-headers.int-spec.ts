import { HttpClient, RedisTestContext } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';
import { SseClient } from '../../support/sse-client';
import { sample } from '../../support/prometheus-text';

/**
 * Limits, headers and metrics of the API (docs/operations.md, "Limits", "HTTP hardening" and
 * "Metrics"), against two API instances sharing one Redis: what one counts, the other sees.
 */
describe('operating the API: limits, security headers, metrics', () => {
  const ctx = new RedisTestContext('ops', {
    API_KEYS:
      'rl:rl-key-0001,cap:cap-key-0001,sse:sse-key-0001,met:met-key-0001,other:other-key-01,burst:burst-key-001',
    RATE_LIMIT_PER_MINUTE: '6',
    MAX_ACTIVE_TASKS_PER_TENANT: '3',
    MAX_SSE_STREAMS_PER_KEY: '2',
    METRICS_TOKEN: 'metrics-token-0001',
    ADMIN_PASSWORD: 'board-password-1',
  });
  const bases: string[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      bases.push((await InProcessApi.start(ctx)).baseUrl);
    }
  });

  afterAll(() => ctx.close());

  const client = (key: string, app = 0) => new HttpClient(bases[app], key);
  const noop = { kind: 'noop', input: { steps: 3 } };

  describe('rate limit per API key, shared by every API instance', () => {
    it('answers the 7th create of a minute with 429 and Retry-After, whichever instance gets it', async () => {
      const statuses: number[] = [];
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        // Alternate instances; stop one task in between so the active-task cap (3) never bites.
        const created = await client('rl-key-0001', i % 2).post('/v1/tasks', noop);
        statuses.push(created.status);
        ids.push(created.body.id);
        if (i >= 2)
          expect((await client('rl-key-0001', i % 2).post(`/v1/tasks/${ids[i - 2]}/stop`)).status).toBe(200);
      }
      expect(statuses).toEqual([201, 201, 201, 201, 201, 201]);
      for (const app of [0, 1]) {
        const refused = await client('rl-key-0001', app).post('/v1/tasks', noop);
        expect(refused.status).toBe(429);
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(refused.body).toEqual({
          statusCode: 429,
          error: 'Too Many Requests',
          message: expect.stringMatching(
            /^rate limit reached: at most 6 of these requests per minute per API key/,
          ),
        });
      }
      // Another key has its own window; reads are not limited; the counter lives under KEY_PREFIX.
      expect((await client('other-key-01', 1).post('/v1/tasks', noop)).status).toBe(201);
      expect((await client('rl-key-0001', 1).get('/v1/tasks')).status).toBe(200);
      const key = `${ctx.prefix}:ratelimit:rl:TasksController.create`;
      expect(Number(await ctx.redis.get(key))).toBe(8);
      const ttl = await ctx.redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    });

    it('limits the controls and conversation messages too, each route in its own window', async () => {
      const task = (await client('other-key-01').post('/v1/tasks', noop)).body.id as string;
      const pauses: number[] = [];
      for (let i = 0; i < 7; i++)
        pauses.push((await client('other-key-01', i % 2).post(`/v1/tasks/${task}/pause`)).status);
      // The first pause applies, the next five are 409 (already paused), the seventh is over the limit.
      expect(pauses).toEqual([200, 409, 409, 409, 409, 409, 429]);
      const messages: number[] = [];
      for (let i = 0; i < 7; i++)
        messages.push(
          (await client('other-key-01', i % 2).post('/v1/conversations/c-1/messages', { text: 'hello' }))
            .status,
        );
      expect(messages.slice(0, 6).every((status) => status === 201)).toBe(true);
      expect(messages[6]).toBe(429);
    });
  });

  it('lets exactly 6 of 12 concurrent requests through, spread over both instances (one atomic count)', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        client('burst-key-001', i % 2)
          .post('/v1/conversations/burst/messages', { text: 'hello' })
          .then((response) => response.status),
      ),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(6);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
  });

  describe('MAX_ACTIVE_TASKS_PER_TENANT', () => {
    it('refuses a 4th unfinished task with 429 saying how many are active, and takes one again when one ends', async () => {
      const cap = client('cap-key-0001');
      const first = await cap.post('/v1/tasks', noop, { 'idempotency-key': 'cap-first' });
      const second = await cap.post('/v1/tasks', noop);
      expect((await client('cap-key-0001', 1).post('/v1/tasks', noop)).status).toBe(201);
      expect([first.status, second.status]).toEqual([201, 201]);
      const refused = await client('cap-key-0001', 1).post('/v1/tasks', noop);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(refused.body).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message: expect.stringContaining(
          "this API key's tenant has 3 active tasks and may have at most 3 at once",
        ),
        activeTasks: 3,
      });
      // A replay of an idempotent create is the same task, not a new one: never refused.
      const replay = await cap.post('/v1/tasks', noop, { 'idempotency-key': 'cap-first' });
      expect(replay.status).toBe(201);
      expect(replay.body.id).toBe(first.body.id);
      expect((await cap.get('/v1/tasks?limit=100')).body.data).toHaveLength(3);
      await cap.post(`/v1/tasks/${second.body.id}/stop`);
      expect((await cap.post('/v1/tasks', noop)).status).toBe(201);
    });
  });

  describe('MAX_SSE_STREAMS_PER_KEY', () => {
    it('refuses a 3rd concurrent stream with 429, across instances, and frees the slot when a stream closes', async () => {
      const task = (await client('sse-key-0001').post('/v1/tasks', noop)).body.id as string;
      const url = (app: number) => `${bases[app]}/v1/tasks/${task}/events`;
      const auth = { authorization: 'Bearer sse-key-0001' };
      const one = await SseClient.open(url(0), auth);
      const two = await SseClient.open(url(1), auth);
      expect([one.status, two.status]).toEqual([200, 200]);
      const third = await fetch(url(0), { headers: auth });
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('5');
      expect(((await third.json()) as { message: string }).message).toMatch(
        /already holds 2 open event streams/,
      );
      // Another key is not affected.
      const other = (await client('other-key-01').post('/v1/tasks', noop)).body.id as string;
      const foreign = await SseClient.open(`${bases[1]}/v1/tasks/${other}/events`, {
        authorization: 'Bearer other-key-01',
      });
      expect(foreign.status).toBe(200);
      await one.close();
      await foreign.close();
      const deadline = Date.now() + 5_000;
      let again = 0;
      while (Date.now() < deadline) {
        const attempt = await SseClient.open(url(1), auth);
        again = attempt.status;
        if (again === 200) {
          await attempt.close();
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(again).toBe(200);
      await two.close();
    });
  });

  describe('security headers', () => {
    it('sends helmet headers, a CSP with frame-ancestors none and Cache-Control: no-store on /v1', async () => {
      for (const path of ['/v1/tasks', '/v1/tasks/tsk_missing', '/health']) {
        const response = await fetch(`${bases[0]}${path}`, {
          headers: { authorization: 'Bearer met-key-0001' },
        });
        expect(response.headers.get('x-powered-by')).toBeNull();
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        expect(response.headers.get('content-security-policy')).toBe(
          "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
        );
        if (path.startsWith('/v1')) expect(response.headers.get('cache-control')).toBe('no-store');
      }
      // A 401 of /v1 is not cached either.
      const refused = await fetch(`${bases[0]}/v1/tasks`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('cache-control')).toBe('no-store');
    });

    it('keeps Bull Board loadable under its CSP: every script and stylesheet it names is same-origin and served', async () => {
      const headers = { authorization: `Basic ${Buffer.from('admin:board-password-1').toString('base64')}` };
      const page = await fetch(`${bases[0]}/admin/queues`, { headers });
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      const html = await page.text();
      const base = /<base href="([^"]+)"/.exec(html)?.[1] ?? '/admin/queues/';
      const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
      expect(scripts.length).toBeGreaterThan(0);
      const sources: string[] = [];
      for (const attributes of scripts) {
        const src = /\bsrc="([^"]+)"/.exec(attributes)?.[1];
        // Inline, only JSON data (not executed, so not subject to script-src).
        if (!src) expect(attributes).toMatch(/type="application\/json"/);
        else sources.push(src);
      }
      const styles = [...html.matchAll(/<link href="([^"]+)" rel="stylesheet"/g)].map((m) => m[1]);
      for (const asset of [...sources, ...styles]) {
        const url = new URL(asset, new URL(base, bases[0]));
        if (url.origin !== bases[0]) {
          // Only the fonts' stylesheet comes from elsewhere, and the CSP names its origin.
          expect(url.origin).toBe('https://fonts.googleapis.com');
          expect(csp).toContain('https://fonts.googleapis.com');
          continue;
        }
        const response = await fetch(url, { headers });
        expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
      }
      // Its JSON API answers under the same policy.
      expect((await fetch(`${bases[0]}/admin/queues/api/queues`, { headers })).status).toBe(200);
    });

    it('keeps the OpenAPI page loadable under its CSP: no inline script, every script served', async () => {
      const page = await fetch(`${bases[0]}/docs`);
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      const html = await page.text();
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attributes, body] of scripts) {
        const src = /\bsrc="([^"]+)"/.exec(attributes)?.[1];
        expect({ src, inline: body.trim() }).toEqual({ src: expect.any(String), inline: '' });
        const url = new URL(src!, `${bases[0]}/docs`);
        expect(url.origin).toBe(bases[0]);
        expect({ src, status: (await fetch(url)).status }).toEqual({ src, status: 200 });
      }
    });

    it('lets a human answer page post its form and use its inline style, and run no script', async () => {
      const page = await fetch(`${bases[0]}/h/tsk_unknown.not-a-secret`);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("form-action 'self'");
      expect(csp).toContain("style-src 'unsafe-inline'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('script-src');
      // The API keeps its own: a form may post nowhere.
      const api = await fetch(`${bases[0]}/v1/tasks`);
      expect(api.headers.get('content-security-policy')).toContain("form-action 'none'");
    });

    it('describes the 429s in OpenAPI', async () => {
      const docs = (await (await fetch(`${bases[0]}/docs-json`)).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
      };
      expect(docs.paths['/v1/tasks'].post.responses['429'].description).toMatch(
        /RATE_LIMIT_PER_MINUTE.*MAX_ACTIVE_TASKS_PER_TENANT/,
      );
      for (const control of ['stop', 'pause', 'resume', 'input'])
        expect(docs.paths[`/v1/tasks/{id}/${control}`].post.responses['429']).toBeDefined();
      expect(docs.paths['/v1/conversations/{id}/messages'].post.responses['429']).toBeDefined();
      expect(docs.paths['/v1/tasks/{id}/events'].get.responses['429'].description).toMatch(
        /MAX_SSE_STREAMS_PER_KEY/,
      );
    });

    it('answers malformed JSON without quoting the body', async () => {
      const response = await client('met-key-0001').post(
        '/v1/tasks',
        '{"kind": "noop", "title": "hunter2-in-a-body", "input": {"steps": 3} oops',
      );
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: expect.stringMatching(/^request body is not valid JSON( \(error at character \d+\))?$/),
      });
      expect(JSON.stringify(response.body)).not.toMatch(/hunter2|oops|kind/);
    });
  });

  describe('/metrics', () => {
    const scrape = async (app = 0) => {
      const response = await fetch(`${bases[app]}/metrics`, {
        headers: { authorization: 'Bearer metrics-token-0001' },
      });
      expect(response.status).toBe(200);
      return response.text();
    };

    it('answers 401 without the METRICS_TOKEN, or with another one', async () => {
      for (const headers of [
        {},
        { authorization: 'Bearer wrong-token-000' },
        { authorization: 'Bearer met-key-0001' },
      ] as Record<string, string>[]) {
        const response = await fetch(`${bases[1]}/metrics`, { headers });
        expect(response.status).toBe(401);
        expect(await response.text()).not.toContain('vigil_');
      }
    });

    it('counts tasks by status and kind from the indexes, queue depths and requests by route pattern', async () => {
      const met = client('met-key-0001');
      const before = await scrape();
      const created = await met.post('/v1/tasks', { kind: 'noop', input: { steps: 2 } });
      expect(created.status).toBe(201);
      await met.get(`/v1/tasks/${created.body.id}`);
      await met.get('/v1/tasks/tsk_doesnotexist');
      const during = await scrape(1);
      const delta = (text: string, name: string, labels: Record<string, string>) =>
        sample(text, name, labels) - sample(before, name, labels);
      expect(delta(during, 'vigil_tasks', { tenant: 'met', status: 'queued' })).toBe(1);
      expect(delta(during, 'vigil_tasks_retained', { status: 'cancelled' })).toBe(0);
      expect(delta(during, 'vigil_active_tasks', { kind: 'noop', status: 'queued' })).toBe(1);
      expect(delta(during, 'vigil_turn_queue_jobs', { shard: '0', state: 'waiting' })).toBe(1);
      // Requests are counted on the instance that served them, by route pattern, never by raw URL.
      const served = await scrape(0);
      const requests = (labels: Record<string, string>) =>
        sample(served, 'vigil_http_request_duration_seconds_count', labels) -
        sample(before, 'vigil_http_request_duration_seconds_count', labels);
      expect(requests({ method: 'POST', route: '/v1/tasks', status: '201' })).toBe(1);
      expect(requests({ method: 'GET', route: '/v1/tasks/:id', status: '200' })).toBe(1);
      expect(requests({ method: 'GET', route: '/v1/tasks/:id', status: '404' })).toBe(1);
      expect(served).not.toContain(created.body.id);
      expect(served).not.toContain('tsk_doesnotexist');

      await met.post(`/v1/tasks/${created.body.id}/stop`);
      const after = await scrape();
      expect(sample(after, 'vigil_tasks', { tenant: 'met', status: 'queued' })).toBe(
        sample(before, 'vigil_tasks', { tenant: 'met', status: 'queued' }),
      );
      expect(delta(after, 'vigil_tasks', { tenant: 'met', status: 'cancelled' })).toBe(1);
      // A finished task stays in Redis until retention archives it: counted whatever its tenant.
      expect(delta(after, 'vigil_tasks_retained', { status: 'cancelled' })).toBe(1);
      expect(sample(after, 'vigil_tasks_retained', { status: 'cancelled' })).toBe(
        ['rl', 'cap', 'sse', 'met', 'other', 'burst']
          .map((tenant) => sample(after, 'vigil_tasks', { tenant, status: 'cancelled' }))
          .reduce((sum, count) => sum + count, 0),
      );
      expect(delta(after, 'vigil_active_tasks', { kind: 'noop', status: 'queued' })).toBe(0);
    });
  });
});
