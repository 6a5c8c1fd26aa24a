import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RedisTestContext } from '@vigil/testing';
import { ApiModule } from '../../../apps/api/src/api.module';
import { configureApi } from '../../../apps/api/src/configure-api';

/** Dead-lettered webhook jobs are visible (and retryable) where the turn queues are: Bull Board. */
describe('webhook queues on Bull Board', () => {
  const ctx = new RedisTestContext('notify-board', { ADMIN_PASSWORD: 'board-password-1', SHARDS: '2' });
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    app = await NestFactory.create(ApiModule.forRoot(ctx.config), { logger: false });
    configureApi(app);
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  it('lists the webhooks queue of every shard beside the turn queues', async () => {
    const response = await fetch(`${base}/admin/queues/api/queues`, {
      headers: { authorization: `Basic ${Buffer.from('admin:board-password-1').toString('base64')}` },
    });
    expect(response.status).toBe(200);
    const names = ((await response.json()) as { queues: { name: string }[] }).queues.map(
      (queue) => queue.name,
    );
    expect(names.sort()).toEqual(['turns{s0}', 'turns{s1}', 'webhooks{s0}', 'webhooks{s1}']);
  });
});
