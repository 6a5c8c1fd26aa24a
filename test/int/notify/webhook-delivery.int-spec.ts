import { sectionsOf } from '@vigil/config';
import { RedisTestContext, WebhookReceiver } from '@vigil/testing';
import {
  type UserMessage,
  verifyWebhookSignature,
  WebhookChannel,
  WebhookQueues,
  WebhookSender,
  WebhookWorkers,
} from '@vigil/notify';

/** Real BullMQ queues and workers delivering over real HTTP to a receiver on loopback. */
describe('webhook delivery', () => {
  const secret = 'whsec-e2e-0123456789';
  const env = {
    WEBHOOK_SECRET: secret,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_BACKOFF_MS: '40',
    WEBHOOK_MAX_ATTEMPTS: '5',
    WEBHOOK_TIMEOUT_MS: '1000',
  };
  const ctx = new RedisTestContext('notify-hooks', env);
  const strict = new RedisTestContext('notify-hooks-ssrf', { ...env, WEBHOOK_ALLOW_PRIVATE: 'false' });
  const receiver = new WebhookReceiver();
  const sides = [ctx, strict].map((context) => {
    const { redis, webhooks } = sectionsOf(context.config);
    const queues = new WebhookQueues(redis, webhooks, context.keys);
    const workers = new WebhookWorkers(
      context.redis,
      context.keys,
      redis,
      webhooks,
      new WebhookSender(webhooks),
    );
    return { context, queues, workers, channel: new WebhookChannel(queues, webhooks) };
  });
  const [open, closed] = sides;
  let url: string;
  let seq = 0;

  beforeAll(async () => {
    url = `${await receiver.listen()}/hooks/vigil`;
    for (const side of sides) side.workers.start();
  });

  afterAll(async () => {
    for (const side of sides) {
      await side.workers.stop();
      await side.queues.close();
      await side.context.close();
    }
    await receiver.close();
  });

  function message(): UserMessage {
    const taskId = `tsk_hook${seq++}`;
    return {
      id: `${taskId}-ev-1700000000000-${seq}`,
      taskId,
      kind: 'completed',
      text: 'Your task is complete.',
      sentAt: new Date().toISOString(),
      attempt: 1,
    };
  }

  it('POSTs the message as JSON, signed so that the receiver helper verifies it', async () => {
    const sent = message();
    await open.channel.deliver({ channel: 'webhook', target: url, message: sent });
    await receiver.waitFor(() => receiver.forMessage(sent.id).length === 1);
    const [hook] = receiver.forMessage(sent.id);
    expect(hook.path).toBe('/hooks/vigil');
    expect(hook.headers['content-type']).toBe('application/json');
    expect(JSON.parse(hook.rawBody)).toEqual(sent);
    const signature = hook.headers['vigil-signature'] as string;
    expect(verifyWebhookSignature(signature, hook.rawBody, secret)).toBe(true);
    // What a receiver must refuse: another body, an old delivery replayed, another secret.
    expect(verifyWebhookSignature(signature, hook.rawBody.replace('complete', 'failed'), secret)).toBe(false);
    expect(verifyWebhookSignature(signature, hook.rawBody, secret, { now: hook.at + 301_000 })).toBe(false);
    expect(verifyWebhookSignature(signature, hook.rawBody, 'not-the-secret')).toBe(false);
  });

  it('retries 500, 500, 500 with growing backoff, then delivers once with the same id and body', async () => {
    const sent = message();
    receiver.answers = [500, 500, 500];
    await open.channel.deliver({ channel: 'webhook', target: url, message: sent });
    // Handing the same message over again (a redelivered event) adds no second delivery.
    await open.channel.deliver({ channel: 'webhook', target: url, message: sent });
    await receiver.waitFor(() => receiver.forMessage(sent.id).some((hook) => hook.status === 200));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const tries = receiver.forMessage(sent.id);
    expect(tries.map((hook) => hook.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(tries.map((hook) => hook.rawBody)).size).toBe(1);
    expect(tries.map((hook) => hook.headers['vigil-delivery-attempt'])).toEqual(['1', '2', '3', '4']);
    // Exponential from 40 ms with 50% jitter: retry n waits 40·2^(n-1) ms at most and half that at least.
    // Only the lower bounds are asserted; a busy machine can make any wait longer, never shorter.
    const gaps = tries.slice(1).map((hook, i) => hook.at - tries[i].at);
    [20, 40, 80].forEach((least, i) => expect(gaps[i]).toBeGreaterThanOrEqual(least - 5));
    const job = await open.queues.queueFor(sent.taskId).getJob(sent.id);
    expect(job?.opts).toMatchObject({
      attempts: 5,
      backoff: { type: 'exponential', delay: 40, jitter: 0.5 },
    });
    expect(await job?.getState()).toBe('completed');
    // Even after it completed: the kept job makes a late re-delivery of the same message a no-op.
    await open.channel.deliver({ channel: 'webhook', target: url, message: sent });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.forMessage(sent.id)).toHaveLength(4);
  });

  it('dead-letters a delivery that fails every attempt, keeping the failed job visible', async () => {
    const sent = message();
    receiver.answers = Array(5).fill(503);
    await open.channel.deliver({ channel: 'webhook', target: url, message: sent });
    const deadline = Date.now() + 10_000;
    while (
      (await open.workers.deadLetters(0)).every((dead) => dead.messageId !== sent.id) &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.forMessage(sent.id).map((hook) => hook.status)).toEqual([503, 503, 503, 503, 503]);
    expect((await open.workers.deadLetters(0)).find((dead) => dead.messageId === sent.id)).toMatchObject({
      taskId: sent.taskId,
      url,
      attempts: 5,
      reason: 'receiver answered 503',
    });
    expect(await (await open.queues.queueFor(sent.taskId).getJob(sent.id))?.getState()).toBe('failed');
  });

  it('gives up at once on 410 Gone', async () => {
    const sent = message();
    receiver.answers = [410];
    await open.channel.deliver({ channel: 'webhook', target: url, message: sent });
    await receiver.waitFor(() => receiver.forMessage(sent.id).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.forMessage(sent.id)).toHaveLength(1);
    expect(await (await open.queues.queueFor(sent.taskId).getJob(sent.id))?.getState()).toBe('failed');
  });

  it('re-checks the target at delivery: a loopback URL is refused without a request unless allowed', async () => {
    const sent = message();
    await closed.channel.deliver({ channel: 'webhook', target: url, message: sent });
    const deadline = Date.now() + 5_000;
    while ((await closed.workers.deadLetters(0)).length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const [dead] = await closed.workers.deadLetters(0);
    expect(dead).toMatchObject({ messageId: sent.id, attempts: 1 });
    expect(dead.reason).toMatch(/private or loopback/);
    expect(receiver.forMessage(sent.id)).toHaveLength(0);
  });
});
