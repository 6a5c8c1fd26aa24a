import { Redis } from 'ioredis';
import { RedisTestContext } from '@vigil/testing';
import { LeaseService } from '@vigil/supervisor';

describe('LeaseService', () => {
  const ctx = new RedisTestContext('lease');
  afterAll(() => ctx.close());

  it('gives a held lease to nobody else, and says so without an error', async () => {
    const first = new LeaseService(ctx.redis, ctx.keys, ctx.config);
    const other = ctx.redis.duplicate();
    const second = new LeaseService(other, ctx.keys, ctx.config);
    let inner: string | undefined = 'not run';
    const outer = await first.withLease('t1', 5_000, 'w1', async (lease) => {
      inner = await second.withLease('t1', 5_000, 'w2', async () => 'both held it');
      return lease.owner;
    });
    expect(outer).toBe('w1');
    expect(inner).toBeUndefined();
    // Released: the next one gets it.
    expect(await second.withLease('t1', 5_000, 'w2', async () => 'second')).toBe('second');
    await other.quit();
  });

  it('surfaces a Redis failure instead of calling it a lease held elsewhere', async () => {
    const broken = new Redis(ctx.config.redisUrl, { lazyConnect: true, enableOfflineQueue: false });
    broken.disconnect();
    const leases = new LeaseService(broken, ctx.keys, ctx.config);
    await expect(leases.withLease('t2', 5_000, 'w', async () => 'ran')).rejects.toThrow();
  });
});
