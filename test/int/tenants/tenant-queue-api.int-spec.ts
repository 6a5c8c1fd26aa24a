import { TenantSlots } from '@vigil/tasks';
import { RedisTestContext } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';

/**
 * The API app as Nest wires it (docs/operations.md, "Tenant limits"): a created task joins its
 * tenant's queue for a running place before its first slice can be picked up, and the lifecycle's
 * pause takes it out at once.
 */
describe('running places through the API app', () => {
  const ctx = new RedisTestContext('tenant-queue-api', { API_KEYS: 'acme:acme-key-123' });
  const slots = new TenantSlots(ctx.redis, ctx.keys);
  afterAll(() => ctx.close());

  it('queues a created task for a place, and gives its turn up when it is paused', async () => {
    const api = (await InProcessApi.start(ctx)).client('acme-key-123');
    const created = await api.post('/v1/tasks', { kind: 'noop', input: { steps: 1 } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const keys = ctx.keys.tenantSlots('acme');
    expect(await ctx.redis.zrange(keys.waiting, '0', '-1')).toEqual([id]);
    expect(await ctx.redis.hget(keys.asks, id)).toMatch(new RegExp(` ${id}-a1-s1$`));
    expect(await ctx.redis.hget(keys.tenants, 'acme')).toMatch(/^0 1 \d+$/);

    expect((await api.post(`/v1/tasks/${id}/pause`, {})).status).toBe(200);
    expect(await slots.waiting('acme')).toBe(0);
  });
});
