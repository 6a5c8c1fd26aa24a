import { Queue } from 'bullmq';
import { StreamConsumer } from '@vigil/events';
import { bullConnection, SliceQueue } from '@vigil/queue';
import { isOutOfMemory, storeMemory } from '@vigil/redis';
import { StoreFullError, TaskRepository } from '@vigil/tasks';
import { newNoopTask, RedisTestContext, SmallRedis, type HttpClient } from '@vigil/testing';
import { RedisThrottlerStorage } from '../../../apps/api/src/limits/redis-throttler.storage';
import { InProcessApi } from '../../support/in-process-api';

const STORE_FULL_BODY = {
  statusCode: 503,
  error: 'Service Unavailable',
  message: expect.stringMatching(/store \(Redis\) is full/),
  code: 'store_full',
};

/** A full Redis (docs/operations.md, "A full Redis"): writes refused as store_full, reads still served. */
describe('a full Redis', () => {
  let small: SmallRedis;
  let ctx: RedisTestContext;
  let tasks: TaskRepository;
  let api: InProcessApi;
  let acme: HttpClient;

  beforeAll(async () => {
    small = await SmallRedis.start({ portOffset: 0 });
    ctx = new RedisTestContext('store-full', { REDIS_URL: small.url, API_KEYS: 'acme:acme-key-123' });
    tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
    api = await InProcessApi.start(ctx);
    acme = api.client('acme-key-123');
  });
  afterEach(() => small.free());
  afterAll(async () => {
    await ctx?.close();
    await small?.stop();
  });

  it('refuses a write as StoreFullError wherever it leaves (script, MULTI, queue job); reads answer', async () => {
    const { task } = await tasks.create('before-full', newNoopTask());
    await small.fill();
    expect(await small.isFull()).toBe(true);
    expect(await storeMemory(ctx.redis)).toMatchObject({ full: true, usedBytes: expect.any(Number) });

    const raw = await ctx.redis.set(`${ctx.prefix}:raw`, 'x').catch((error: unknown) => error);
    expect(isOutOfMemory(raw)).toBe(true);
    expect(isOutOfMemory(new Error('ERR something else'))).toBe(false);

    const script = await tasks.create('while-full', newNoopTask()).catch((error: unknown) => error);
    expect(script).toBeInstanceOf(StoreFullError);
    const refused = script as StoreFullError;
    expect(refused.kind).toBe('unavailable');
    expect(refused.retryAfterS).toBe(30);
    expect(refused.details()).toEqual({ code: 'store_full' });
    expect(isOutOfMemory(refused.refusal)).toBe(true);

    const multi = await new RedisThrottlerStorage(ctx.redis, ctx.prefix)
      .increment('acme:route', 60_000, 10)
      .catch((error: unknown) => error);
    expect(multi).toBeInstanceOf(StoreFullError);

    const queue = new Queue(ctx.keys.sliceQueueName(0), {
      connection: bullConnection(ctx.config.redisUrl),
      prefix: ctx.prefix,
    });
    ctx.onClose(() => queue.close());
    const job = await new SliceQueue([queue], ctx.keys)
      .publish({ taskId: task.id, attempt: 1, slice: 1, reason: 'created' })
      .catch((error: unknown) => error);
    expect(job).toBeInstanceOf(StoreFullError);

    // Reads still answer, and deletes (what retention runs) are not refused.
    expect(await tasks.get(task.id)).toMatchObject({ id: task.id, status: 'queued' });
    expect(await tasks.get('while-full')).toBeNull();
    expect(await ctx.redis.unlink(`${ctx.prefix}:nothing-there`)).toBe(0);

    await small.free();
    expect(await tasks.create('after-full', newNoopTask())).toMatchObject({ created: true });
  });

  it('answers creates, controls and messages 503 store_full with Retry-After; reads 200; /health degraded; 201 once freed', async () => {
    const existing = await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 2 } });
    expect(existing.status).toBe(201);
    const id = existing.body.id as string;
    await small.fill();

    const create = await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 2 } });
    expect(create.status).toBe(503);
    expect(create.headers.get('retry-after')).toBe('30');
    expect(create.body).toEqual(STORE_FULL_BODY);
    for (const control of ['stop', 'pause', 'resume']) {
      const answer = await acme.post(`/v1/tasks/${id}/${control}`, {});
      expect([control, answer.status, answer.body.code]).toEqual([control, 503, 'store_full']);
      expect(answer.headers.get('retry-after')).toBe('30');
    }
    const input = await acme.post(`/v1/tasks/${id}/input`, { text: 'go on' });
    expect([input.status, input.body.code]).toEqual([503, 'store_full']);
    const message = await acme.post('/v1/conversations/c-1/messages', { messageId: 'm-1', text: 'status?' });
    expect([message.status, message.body.code]).toEqual([503, 'store_full']);

    const read = await acme.get(`/v1/tasks/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, status: 'queued' });
    expect((await acme.get('/v1/tasks')).status).toBe(200);

    const health = await acme.withKey(undefined).get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'degraded',
      info: { redis: { status: 'up', degraded: 'store_full', usedBytes: expect.any(Number) } },
    });

    await small.free();
    const after = await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 2 } });
    expect(after.status).toBe(201);
    const healthy = await acme.withKey(undefined).get('/health');
    expect(healthy.body.status).toBe('ok');
    expect(healthy.body.info.redis).not.toHaveProperty('degraded');
  });

  it('lets an event consumer start while full when its group exists (a notifier restarting), and not otherwise', async () => {
    const consumer = (group: string) =>
      new StreamConsumer(
        ctx.redis,
        ctx.keys,
        { group, consumer: 'c1', claimIdleMs: 1000, blockMs: 100 },
        async () => {
          return undefined;
        },
      );
    const before = consumer('existing');
    await before.start();
    await before.stop();
    await small.fill();
    const restarted = consumer('existing');
    await expect(restarted.start()).resolves.toBeUndefined();
    await restarted.stop();
    await expect(consumer('never-created').start()).rejects.toThrow(/OOM command not allowed/);
  });
});
