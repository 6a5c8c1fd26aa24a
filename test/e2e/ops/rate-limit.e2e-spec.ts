import { HttpClient, RedisTestContext, VigilStack } from '@vigil/testing';

/**
 * Two API processes share one Redis: the rate limit and the active-task cap are counted there, so
 * a client that spreads its requests over both replicas gets no more than one replica would allow.
 */
describe('limits across two API processes', () => {
  const ctx = new RedisTestContext('ops-rate');
  const stack = new VigilStack(ctx, {
    API_KEYS: 'rl:rl-key-00001,cap:cap-key-0001',
    RATE_LIMIT_PER_MINUTE: '3',
    MAX_ACTIVE_TASKS_PER_TENANT: '2',
  });
  let apis: HttpClient[];

  beforeAll(async () => {
    const first = await stack.start('api');
    const second = await stack.start('api');
    apis = [first, second].map((process) => new HttpClient(`http://127.0.0.1:${process.port}`));
  });

  afterAll(() => ctx.close());

  const noop = { kind: 'noop', input: { steps: 2 } };

  it('answers the 4th create of a minute with 429 and Retry-After, on either process', async () => {
    const rl = apis.map((api) => api.withKey('rl-key-00001'));
    const first = await rl[0].post('/v1/tasks', noop);
    const second = await rl[1].post('/v1/tasks', noop);
    // Stop one (a control has its own window) so the cap of 2 active tasks does not decide.
    expect((await rl[0].post(`/v1/tasks/${first.body.id}/stop`)).status).toBe(200);
    const third = await rl[0].post('/v1/tasks', noop);
    expect([first.status, second.status, third.status]).toEqual([201, 201, 201]);
    for (const api of [rl[1], rl[0]]) {
      const refused = await api.post('/v1/tasks', noop);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(refused.body.message).toMatch(/at most 3 of these requests per minute per API key/);
    }
    // Nothing was created by the refused requests.
    expect((await rl[1].get('/v1/tasks?limit=100')).body.data).toHaveLength(3);
  });

  it('refuses a 3rd active task of a tenant with 429 naming how many are active, on either process', async () => {
    const cap = apis.map((api) => api.withKey('cap-key-0001'));
    expect((await cap[0].post('/v1/tasks', noop)).status).toBe(201);
    expect((await cap[1].post('/v1/tasks', noop)).status).toBe(201);
    const refused = await cap[0].post('/v1/tasks', noop);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      statusCode: 429,
      error: 'Too Many Requests',
      activeTasks: 2,
      message: expect.stringContaining('has 2 active tasks and may have at most 2 at once'),
    });
    expect((await cap[1].get('/v1/tasks?limit=100')).body.data).toHaveLength(2);
  });
});
