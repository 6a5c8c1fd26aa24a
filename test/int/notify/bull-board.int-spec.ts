import { RedisTestContext } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';

/** Dead-lettered webhook jobs are visible (and retryable) where the slice queues are: Bull Board. */
describe('webhook queues on Bull Board', () => {
  const ctx = new RedisTestContext('notify-board', { ADMIN_PASSWORD: 'board-password-1', SHARDS: '2' });
  let base: string;

  beforeAll(async () => {
    base = (await InProcessApi.start(ctx)).baseUrl;
  });

  afterAll(() => ctx.close());

  it('lists the webhooks queue of every shard beside the slice queues', async () => {
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
