import { request } from 'node:http';
import type { FaultStats } from './faults';
import { MetaSandbox } from './sandbox';
import type { SandboxSnapshot } from './snapshot';
import { startSandbox, type RunningSandbox } from './test-kit';

const ACT = 'act_5005';
const campaign = (name: string): Record<string, unknown> => ({
  name,
  objective: 'OUTCOME_AWARENESS',
  special_ad_categories: [],
});

describe('MetaSandbox fault injection', () => {
  let sb: RunningSandbox;

  beforeAll(async () => {
    sb = await startSandbox({ seed: 7 });
  });
  afterAll(() => sb.close());
  beforeEach(() => sb.sandbox.reset());

  it('rate-limits K calls after every N accepted calls, cycling codes, with usage headers', async () => {
    sb.sandbox.setFaults({ rateLimit: { every: 2, burst: 2, codes: [17, 613] } });
    const replies = [];
    for (let i = 0; i < 7; i += 1) replies.push(await sb.get(`${ACT}/campaigns`));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 400, 400, 200, 200, 400]);
    expect(replies.map((r) => r.body.error?.code)).toEqual([
      undefined,
      undefined,
      17,
      613,
      undefined,
      undefined,
      17,
    ]);
    expect(replies[2].body.error).toMatchObject({
      type: 'OAuthException',
      message: 'User request limit reached',
      is_transient: true,
    });
    for (const reply of replies) {
      expect(reply.headers.get('retry-after')).toBeNull();
      expect(JSON.parse(reply.headers.get('x-app-usage') as string)).toHaveProperty('call_count');
    }
    const usage = JSON.parse(replies[2].headers.get('x-business-use-case-usage') as string);
    expect(usage['5005'][0]).toMatchObject({
      type: 'ads_management',
      call_count: 100,
      estimated_time_to_regain_access: 0,
    });
    expect(
      JSON.parse(replies[0].headers.get('x-business-use-case-usage') as string)['5005'][0].call_count,
    ).toBe(50);
    expect(sb.sandbox.stats().faults.rateLimit).toBe(3);
  });

  it('returns transient 500s (code 2, is_transient) without side effects', async () => {
    sb.sandbox.setFaults({ transient500Probability: 1 });
    const res = await sb.postForm(`${ACT}/campaigns`, campaign('X'));
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({
      code: 2,
      type: 'OAuthException',
      is_transient: true,
      message: 'An unexpected error has occurred. Please retry your request later.',
    });
    expect(sb.sandbox.objects().counts.campaigns).toBe(0);
  });

  it('commit-then-drop creates the object, then destroys the socket without a response', async () => {
    sb.sandbox.setFaults({ failNext: [{ path: '/campaigns$', kind: 'commitThenDrop', method: 'POST' }] });
    await expect(sb.postForm(`${ACT}/campaigns`, campaign('Dropped'))).rejects.toThrow(/fetch failed/);
    expect(sb.sandbox.objects().objects.campaigns).toEqual([expect.objectContaining({ name: 'Dropped' })]);
    expect((await sb.postForm(`${ACT}/campaigns`, campaign('Next'))).status).toBe(200);
    expect(sb.sandbox.stats().faults.commitThenDrop).toBe(1);
  });

  it('drop destroys the socket before anything happens; failNext honours method and times', async () => {
    sb.sandbox.setFaults({ failNext: [{ path: 'campaigns', kind: 'drop', method: 'GET', times: 2 }] });
    expect((await sb.postForm(`${ACT}/campaigns`, campaign('Kept'))).status).toBe(200);
    await expect(sb.get(`${ACT}/campaigns`)).rejects.toThrow();
    await expect(sb.get(`${ACT}/campaigns`)).rejects.toThrow();
    expect((await sb.get(`${ACT}/campaigns`)).status).toBe(200);
    expect(sb.sandbox.stats().faults.drop).toBe(2);
  });

  it('hangs until the client gives up', async () => {
    sb.sandbox.setFaults({ hangProbability: 1 });
    const started = Date.now();
    await expect(
      fetch(`${sb.baseUrl}/${ACT}/campaigns`, { signal: AbortSignal.timeout(200) }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(sb.sandbox.stats().faults.hang).toBe(1);
  });

  it('adds seeded latency', async () => {
    sb.sandbox.setFaults({ latencyMs: { min: 120, max: 150 } });
    const started = Date.now();
    expect((await sb.get(`${ACT}/campaigns`)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('is deterministic for a seed', async () => {
    const run = async (seed: number): Promise<number[]> => {
      const other = await startSandbox({ seed, faults: { transient500Probability: 0.5 } });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 16; i += 1) statuses.push((await other.get(`${ACT}/campaigns`)).status);
        return statuses;
      } finally {
        await other.close();
      }
    };
    const a = await run(42);
    expect(await run(42)).toEqual(a);
    expect(a).toContain(500);
    expect(a).toContain(200);
  });

  it('serves the admin routes: faults, objects with duplicates, stats, reset', async () => {
    const admin = (path: string, init?: RequestInit): Promise<Response> =>
      fetch(`${sb.origin}/__sandbox/${path}`, init);
    const set = await admin('faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failNext: [{ path: 'adsets', kind: 'transient500' }] }),
    });
    expect(await set.json()).toMatchObject({
      failNext: [{ path: 'adsets', kind: 'transient500', times: 1 }],
    });
    const invalid = await admin('faults', { method: 'POST', body: JSON.stringify({ hangProbability: 3 }) });
    expect(invalid.status).toBe(400);

    await sb.postForm(`${ACT}/campaigns`, campaign('Twin'));
    await sb.postForm(`${ACT}/campaigns`, campaign('Twin'));
    await sb.postForm('act_6006/campaigns', campaign('Twin'));
    const objects = (await (await admin('objects')).json()) as SandboxSnapshot;
    expect(objects.counts).toMatchObject({ campaigns: 3, adsets: 0 });
    expect(objects.duplicates).toEqual([
      { kind: 'campaign', parentId: ACT, name: 'Twin', ids: [expect.any(String), expect.any(String)] },
    ]);
    expect(sb.sandbox.duplicates()).toEqual(objects.duplicates);

    const stats = (await (await admin('stats')).json()) as FaultStats;
    expect(stats.requests).toBe(3);
    expect(stats.byStatus).toEqual({ 200: 3 });

    expect((await admin('reset', { method: 'POST' })).status).toBe(200);
    expect(sb.sandbox.objects().counts.campaigns).toBe(0);
    expect(sb.sandbox.stats().requests).toBe(0);
    expect((await admin('nope')).status).toBe(404);
  });

  it('close() ends hung requests and pending latency and resolves promptly', async () => {
    const local = new MetaSandbox({ accessToken: 't', faults: { hangProbability: 1 } });
    const { port } = await local.listen(0);
    const outcome = new Promise<string>((resolve) => {
      const req = request({ port, host: '127.0.0.1', path: '/v21.0/act_1/campaigns?access_token=t' }, () =>
        resolve('answered'),
      );
      req.on('error', (err) => resolve(err.message));
      req.end();
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(local.stats().faults.hang).toBe(1);
    const started = Date.now();
    await local.close();
    expect(Date.now() - started).toBeLessThan(500);
    expect(await outcome).toMatch(/socket hang up|ECONNRESET/);
  });
});
