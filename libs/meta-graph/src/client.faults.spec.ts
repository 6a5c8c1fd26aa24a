import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type RunningSandbox } from '@vigil/meta-sandbox';
import { MetaGraphClient } from './client';
import {
  MetaApiError,
  MetaRequestAbortedError,
  MetaTransportError,
  MetaWriteOutcomeUnknownError,
} from './errors';
import type { MetaGraphClientOptions } from './types';

const ACT = 'act_8008';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const campaignInput = (name: string) => ({
  name,
  objective: 'OUTCOME_SALES' as const,
  specialAdCategories: [],
});

describe('MetaGraphClient retries, lost writes and cancellation', () => {
  let sb: RunningSandbox;
  let delays: number[];

  /** Client whose backoff sleeps are recorded instead of waited (unless `sleep` is overridden). */
  const makeClient = (overrides: Partial<MetaGraphClientOptions> = {}): MetaGraphClient =>
    new MetaGraphClient({
      baseUrl: sb.baseUrl,
      accessToken: sb.token,
      backoffMs: 10,
      random: () => 1,
      sleep: async (ms) => {
        delays.push(ms);
      },
      ...overrides,
    });

  beforeAll(async () => {
    sb = await startSandbox({ seed: 3 });
  });
  afterAll(() => sb.close());
  beforeEach(() => {
    sb.sandbox.reset();
    delays = [];
  });

  it('retries a rate-limit burst with a longer backoff, then succeeds once', async () => {
    sb.sandbox.setFaults({
      failNext: [{ path: '/campaigns$', kind: 'rateLimit', method: 'POST', times: 2 }],
    });
    const retried: number[] = [];
    const client = makeClient({ onRetry: (e) => retried.push((e.error as MetaApiError).code) });
    const { id } = await client.createCampaign(ACT, campaignInput('Throttled'));
    expect(retried).toEqual([17, 17]);
    expect(delays).toEqual([50, 100]); // backoffMs 10 × 2^attempt × rate-limit factor 5
    expect(sb.sandbox.objects().objects.campaigns).toEqual([
      expect.objectContaining({ id, name: 'Throttled' }),
    ]);
    expect(sb.sandbox.stats().faults.rateLimit).toBe(2);
  });

  it("waits as long as the usage header's estimated_time_to_regain_access says (capped)", async () => {
    sb.sandbox.setFaults({ rateLimit: { every: 1, burst: 1, regainAccessMinutes: 1 } });
    const client = makeClient();
    await client.getObject(ACT, ['name']);
    await client.getObject(ACT, ['name']);
    expect(delays).toEqual([60_000]);
    delays = [];
    await makeClient({ maxRateLimitWaitMs: 5_000 }).getObject(ACT, ['name']);
    expect(delays).toEqual([5_000]);
  });

  it('keeps paging correctly through periodic rate limits', async () => {
    const client = makeClient();
    for (let i = 0; i < 6; i += 1) await client.createCampaign(ACT, campaignInput(`P${i}`));
    sb.sandbox.setFaults({ rateLimit: { every: 2, burst: 1, codes: [80004] } });
    const all = await client.listEdge(ACT, 'campaigns', { fields: ['name'], limit: 2 });
    expect(all.map((c) => c.name)).toEqual(['P5', 'P4', 'P3', 'P2', 'P1', 'P0']);
    expect(sb.sandbox.stats().faults.rateLimit).toBeGreaterThanOrEqual(1);
  });

  it('retries transient 500s (code 2) then succeeds; gives up after maxRetries with the last error', async () => {
    const client = makeClient();
    const { id } = await client.createCampaign(ACT, campaignInput('Flaky'));
    sb.sandbox.setFaults({ failNext: [{ path: id, kind: 'transient500', times: 2 }] });
    expect(await client.getObject(id, ['name'])).toEqual({ id, name: 'Flaky' });
    expect(delays).toEqual([10, 20]);

    sb.sandbox.setFaults({ transient500Probability: 1 });
    const before = sb.sandbox.stats().requests;
    const error = await makeClient({ maxRetries: 2 })
      .getObject(id, ['name'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaApiError);
    expect(error).toMatchObject({ code: 2, httpStatus: 500, retryable: true, isTransient: true });
    expect(sb.sandbox.stats().requests - before).toBe(3);
  });

  it('never sends a create again after a server error: its outcome is unknown, reconcile decides', async () => {
    sb.sandbox.setFaults({ failNext: [{ path: '/campaigns$', kind: 'transient500', method: 'POST' }] });
    const client = makeClient();
    const error = await client.createCampaign(ACT, campaignInput('Server trouble')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaWriteOutcomeUnknownError);
    expect(error).toMatchObject({ operation: 'createCampaign', reason: 'server_error' });
    expect(sb.sandbox.stats().requests).toBe(1);
    expect(delays).toEqual([]);
  });

  it('surfaces commit-then-drop on a create as MetaWriteOutcomeUnknownError without retrying', async () => {
    sb.sandbox.setFaults({ failNext: [{ path: '/campaigns$', kind: 'commitThenDrop', method: 'POST' }] });
    const client = makeClient();
    const error = await client.createCampaign(ACT, campaignInput('Lost reply')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaWriteOutcomeUnknownError);
    expect(error).toMatchObject({
      operation: 'createCampaign',
      parentId: ACT,
      objectName: 'Lost reply',
      reason: 'connection_dropped',
    });
    expect(sb.sandbox.stats().requests).toBe(1);
    expect(delays).toEqual([]);

    const found = await client.findByName(ACT, 'campaigns', 'Lost reply');
    expect(found).toHaveLength(1);
    expect(sb.sandbox.objects().objects.campaigns.map((c) => c.id)).toEqual([found[0].id]);
    expect(sb.sandbox.duplicates()).toEqual([]);

    // What a blind retry would have done: the duplicates report catches it.
    await client.createCampaign(ACT, campaignInput('Lost reply'));
    expect(sb.sandbox.duplicates()).toEqual([
      { kind: 'campaign', parentId: ACT, name: 'Lost reply', ids: [found[0].id, expect.any(String)] },
    ]);
  });

  it('retries image uploads after a lost reply: same bytes, same hash, one image', async () => {
    sb.sandbox.setFaults({ failNext: [{ path: '/adimages$', kind: 'commitThenDrop' }] });
    const image = await makeClient().uploadImage(ACT, { name: 'hero.png', bytesBase64: PNG });
    expect(image.hash).toMatch(/^[0-9a-f]{32}$/);
    expect(delays).toHaveLength(1);
    expect(sb.sandbox.objects().counts.adimages).toBe(1);
  });

  it('retries reads after a dropped connection', async () => {
    sb.sandbox.setFaults({ failNext: [{ path: 'act_8008$', kind: 'drop' }] });
    expect(await makeClient().getObject(ACT, ['currency'])).toEqual({ id: ACT, currency: 'USD' });
    expect(sb.sandbox.stats().faults.drop).toBe(1);
  });

  it('aborts a hung request within ~1 s via the caller signal', async () => {
    sb.sandbox.setFaults({ hangProbability: 1 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('task cancelled')), 150);
    const started = Date.now();
    const error = await makeClient()
      .listEdge(ACT, 'campaigns', { fields: ['name'] }, controller.signal)
      .catch((e) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(MetaRequestAbortedError);
    expect((error as Error).cause).toEqual(new Error('task cancelled'));
  });

  it('reports an aborted in-flight create as outcome unknown', async () => {
    sb.sandbox.setFaults({ failNext: [{ path: '/campaigns$', kind: 'hang' }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await makeClient()
      .createCampaign(ACT, campaignInput('Hung'), controller.signal)
      .catch((e) => e);
    expect(error).toBeInstanceOf(MetaWriteOutcomeUnknownError);
    expect(error).toMatchObject({ reason: 'aborted' });
  });

  it('times out: creates become outcome-unknown, reads are retried', async () => {
    sb.sandbox.setFaults({ failNext: [{ path: '', kind: 'hang', times: 2 }] });
    const client = makeClient({ timeoutMs: 200 });
    const started = Date.now();
    const error = await client.createCampaign(ACT, campaignInput('Slow')).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toMatchObject({ name: 'MetaWriteOutcomeUnknownError', reason: 'timeout' });
    expect(await client.getObject(ACT, ['currency'])).toEqual({ id: ACT, currency: 'USD' });
    expect(delays).toHaveLength(1);
  });

  it('cancels a backoff sleep at once when aborted', async () => {
    sb.sandbox.setFaults({ transient500Probability: 1 });
    const client = makeClient({ sleep: undefined, backoffMs: 30_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = Date.now();
    await expect(client.getObject(ACT, ['name'], controller.signal)).rejects.toBeInstanceOf(
      MetaRequestAbortedError,
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('retries a create when the connection was refused (nothing was sent)', async () => {
    const dead = await startSandbox();
    const baseUrl = dead.baseUrl;
    await dead.close();
    const client = new MetaGraphClient({
      baseUrl,
      accessToken: 'x',
      maxRetries: 2,
      sleep: async (ms) => void delays.push(ms),
    });
    const error = await client.createCampaign(ACT, campaignInput('Nowhere')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaTransportError);
    expect(error).toMatchObject({ kind: 'connection', maybeDelivered: false });
    expect(delays).toHaveLength(2);
  });

  describe('against a non-Graph gateway error', () => {
    let server: Server;
    let url: string;
    let calls = 0;
    beforeAll(async () => {
      server = createServer((req, res) => {
        calls += 1;
        if (calls === 1 || req.method === 'POST') {
          res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>');
          return;
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: '1', name: 'ok' }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v21.0`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('retries reads but treats a create as outcome-unknown', async () => {
      const client = new MetaGraphClient({ baseUrl: url, accessToken: 't', sleep: async () => undefined });
      expect(await client.getObject('1', ['name'])).toEqual({ id: '1', name: 'ok' });
      const error = await client.createCampaign(ACT, campaignInput('Gateway')).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'MetaWriteOutcomeUnknownError', reason: 'bad_response' });
      expect(calls).toBe(3);
    });
  });
});
