import { parseTaskEvent } from '@vigil/events';
import { NOTIFIER_GROUP, UserMessage, verifyWebhookSignature } from '@vigil/notify';
import { AppProcess, HttpClient, RedisTestContext, WebhookReceiver } from '@vigil/testing';
import { assertBuilt, sleep, startAll, within } from '../../support/processes';
import { SseClient } from '../../support/sse-client';

/**
 * A real ~20 s noop task run by a worker and a watcher process, watched by three notifier processes
 * (one killed with SIGKILL half way), an API process serving its live stream, and a webhook receiver.
 */
describe('notifier processes: cadence, exactly once, kill -9', () => {
  const I = 500;
  const secret = 'whsec-process-test';
  const ctx = new RedisTestContext('notify-procs');
  const receiver = new WebhookReceiver();
  const env = (extra: Record<string, string>) =>
    ctx.env({
      API_KEYS: 'acme:acme-key-123',
      USER_UPDATE_INTERVAL_MS: String(I),
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '2000',
      WATCHER_INTERVAL_MS: '300',
      NOTIFIER_CLAIM_IDLE_MS: '1000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_SECRET: secret,
      WEBHOOK_BACKOFF_MS: '100',
      WEBHOOK_TIMEOUT_MS: '2000',
      SSE_HEARTBEAT_MS: '1000',
      ...extra,
    });
  let apps: AppProcess[] = [];
  let api: HttpClient;
  let apiBase: string;
  let hookUrl: string;

  beforeAll(async () => {
    assertBuilt();
    hookUrl = `${await receiver.listen()}/hook`;
    apps = await startAll(
      [
        ['api', 'PORT'],
        ['worker', 'WORKER_PORT'],
        ['watcher', 'WATCHER_PORT'],
        ['notifier', 'NOTIFIER_PORT'],
        ['notifier', 'NOTIFIER_PORT'],
        ['notifier', 'NOTIFIER_PORT'],
      ],
      env,
    );
    apiBase = `http://127.0.0.1:${apps[0].port}`;
    api = new HttpClient(apiBase, 'acme-key-123');
  }, 30_000);

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await receiver.close();
    await ctx.close();
  });

  it('one update per interval, never two in one, one final message, nothing lost or doubled', async () => {
    const created = await api.post('/v1/tasks', {
      kind: 'noop',
      title: 'twenty seconds of noop',
      input: { steps: 40, stepMs: 500 },
      notify: { webhookUrl: hookUrl },
    });
    expect(created.status).toBe(201);
    const taskId: string = created.body.id;
    const auth = { authorization: 'Bearer acme-key-123' };
    const streamUrl = `${apiBase}/v1/tasks/${taskId}/events`;

    const first = await SseClient.open(streamUrl, auth);
    await sleep(4_000);
    await first.close();
    await sleep(2_000);
    const [killed] = apps.slice(3);
    killed.signal('SIGKILL');
    await killed.exited();
    await sleep(1_000);
    const second = await SseClient.open(streamUrl, { ...auth, 'last-event-id': first.lastId()! });
    await within(second.finished(), 40_000, 'the live stream to end after the terminal event');

    const task = (await api.get(`/v1/tasks/${taskId}`)).body;
    expect(task.status).toBe('completed');
    const createdAt = Date.parse(task.createdAt);
    const finishedAt = Date.parse(task.finishedAt);
    await sleep(3 * I);
    const messages: UserMessage[] = (await api.get(`/v1/tasks/${taskId}/messages?limit=100`)).body.data;
    await sleep(3 * I);
    // None after the final one, however long the notifiers keep ticking.
    expect((await api.get(`/v1/tasks/${taskId}/messages?limit=100`)).body.data).toHaveLength(messages.length);

    // Cadence: one progress update per interval slot (±1), never two in one slot or back to back.
    const updates = messages.filter((m) => m.kind === 'progress');
    const slots = updates.map((m) => Number(/-up-(\d+)$/.exec(m.id)![1]));
    const elapsedSlots = Math.floor((finishedAt - createdAt) / I);
    process.stdout.write(
      `cadence: ${updates.length} updates over ${elapsedSlots} slots (${finishedAt - createdAt} ms), ${messages.length} messages, ${receiver.received.length} webhook requests\n`,
    );
    expect(Math.abs(updates.length - elapsedSlots)).toBeLessThanOrEqual(1);
    expect(new Set(slots).size).toBe(slots.length);
    for (const [i, update] of updates.entries()) {
      expect(Math.floor((Date.parse(update.sentAt) - createdAt) / I)).toBe(slots[i]);
      if (i > 0)
        expect(Date.parse(update.sentAt) - Date.parse(updates[i - 1].sentAt)).toBeGreaterThanOrEqual(I / 2);
    }
    expect(updates.at(-1)!.text).toMatch(/\d+ of 40 steps are complete/);

    // Exactly one final message, last in the log and last in time; no id twice.
    const finals = messages.filter((m) => m.kind === 'completed' || m.kind === 'failed');
    expect(finals).toHaveLength(1);
    expect(messages.at(-1)).toEqual(finals[0]);
    expect(Math.max(...messages.map((m) => Date.parse(m.sentAt)))).toBe(Date.parse(finals[0].sentAt));
    expect(finals[0].text).toContain('all_steps_recorded (expected 40, found 40)');
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);

    // No event lost: everything the group read was acknowledged, the dead consumer's too.
    const stream = ctx.keys.events(0);
    const deadline = Date.now() + 5_000;
    while ((await ctx.redis.xpending(stream, NOTIFIER_GROUP))[0] !== 0 && Date.now() < deadline)
      await sleep(100);
    expect((await ctx.redis.xpending(stream, NOTIFIER_GROUP))[0]).toBe(0);
    const events = (await ctx.redis.xrange(stream, '-', '+'))
      .map(([id, fields]) => parseTaskEvent(0, id, fields))
      .filter((event) => event.taskId === taskId);
    const terminal = events.find((event) => event.type === 'task.completed')!;
    expect(finals[0].id).toBe(`${taskId}-ev-${terminal.id}`);

    // SSE: the first connection plus the resumed one saw every event exactly once, in order.
    // The scripted agent's live text comes between them (docs/api.md, "Live model output").
    const frames = [...first.events(), ...second.events()];
    const seen = frames.filter((frame) => !frame.event!.startsWith('model.'));
    expect(frames.some((frame) => frame.event === 'model.delta')).toBe(true);
    expect(seen.map((frame) => frame.id)).toEqual(events.map((event) => event.id));
    expect(seen.at(-1)!.data.message).toEqual(finals[0]);
    expect(seen.filter((frame) => frame.data.message).map((frame) => frame.data.message.id)).toEqual(
      messages.map((m) => m.id),
    );
    expect(first.frames.concat(second.frames).some((frame) => frame.comment === 'heartbeat')).toBe(true);

    // Webhooks: every message delivered and verifiable; receivers dedupe by Vigil-Message-Id.
    await receiver.waitFor(
      () => messages.every((m) => receiver.forMessage(m.id).some((hook) => hook.status === 200)),
      15_000,
    );
    const mine = receiver.received.filter((hook) => JSON.parse(hook.rawBody).taskId === taskId);
    for (const hook of mine) {
      expect(verifyWebhookSignature(hook.headers['vigil-signature'] as string, hook.rawBody, secret)).toBe(
        true,
      );
      expect(JSON.parse(hook.rawBody)).toEqual(
        messages.find((m) => m.id === hook.headers['vigil-message-id']),
      );
    }
    // At most the one delivery in flight when the notifier was killed can be retried (at-least-once).
    expect(mine.length - messages.length).toBeLessThanOrEqual(1);

    // The survivors stop cleanly.
    for (const survivor of apps.slice(4)) {
      survivor.signal('SIGTERM');
      expect(await survivor.exited()).toEqual({ code: 0, signal: null });
    }
  }, 75_000);
});
