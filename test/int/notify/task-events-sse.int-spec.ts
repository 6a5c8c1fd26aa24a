import { parseTaskEvent } from '@vigil/events';
import { createNotifier, Notifier } from '@vigil/notify';
import { HttpClient, RedisTestContext, redisLifecycle, TEST_CLAIM } from '@vigil/testing';
import { TaskRepository } from '@vigil/tasks';
import { InProcessApi } from '../../support/in-process-api';
import { within } from '../../support/processes';
import { SseClient } from '../../support/sse-client';

/** GET /v1/tasks/:id/events served by the API in-process, with a notifier producing the messages. */
describe('live stream (SSE)', () => {
  const ctx = new RedisTestContext('notify-sse', {
    API_KEYS: 'acme:acme-key-123,globex:globex-key-456',
    SSE_HEARTBEAT_MS: '300',
    USER_UPDATE_INTERVAL_MS: '400',
  });
  const repo = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const { lifecycle } = redisLifecycle(ctx);
  let api: InProcessApi;
  let notifier: Notifier;
  let base: string;
  let acme: HttpClient;
  const auth = { authorization: 'Bearer acme-key-123' };

  beforeAll(async () => {
    notifier = createNotifier(ctx.redis, ctx.keys, ctx.sections);
    await notifier.start();
    api = await InProcessApi.start(ctx);
    base = api.baseUrl;
    acme = api.client('acme-key-123');
  });

  afterAll(async () => {
    await notifier.stop();
    await ctx.close();
  });

  const newTask = async () =>
    (await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 3 }, sandbox: true })).body;
  const streamIdsOf = async (taskId: string) =>
    (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
      .map(([id, fields]) => parseTaskEvent(0, id, fields))
      .filter((event) => event.taskId === taskId)
      .map((event) => event.id);

  it('refuses without a key, hides other tenants, and rejects a malformed Last-Event-ID', async () => {
    const task = await newTask();
    expect((await acme.withKey(undefined).get(`/v1/tasks/${task.id}/events`)).status).toBe(401);
    expect((await acme.withKey('globex-key-456').get(`/v1/tasks/${task.id}/events`)).status).toBe(404);
    const bad = await acme.request('GET', `/v1/tasks/${task.id}/events`, undefined, {
      'last-event-id': 'nope',
    });
    expect(bad.status).toBe(400);
    expect((await acme.get(`/v1/tasks/${task.id}/events?lastEventId=1-x`)).status).toBe(400);
  });

  it('a client that disconnects and resumes with Last-Event-ID misses nothing, then the stream ends', async () => {
    const created = await newTask();
    const task = (await repo.get(created.id))!;
    const url = `${base}/v1/tasks/${task.id}/events`;
    const first = await SseClient.open(url, auth);
    expect(first.status).toBe(200);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await repo.heartbeat(task.id, 1, { currentStep: 'noop_step step:0', completedUnits: 1 }, true);
    await lifecycle.askPerson(task, { attempt: 1, question: 'Go on?' });
    await first.waitFor((c) => c.events().some((f) => f.event === 'task.waiting_on_human'));
    // Heartbeat comments arrive on their own clock (SSE_HEARTBEAT_MS=300).
    await first.waitFor((c) => c.frames.some((f) => f.comment === 'heartbeat'), 2_000);
    await first.close();

    // While nobody listens: the answer, a pause and a resume, and time for a progress update.
    await acme.post(`/v1/tasks/${task.id}/input`, { text: 'yes' });
    await lifecycle.pause(task);
    // A resume starts attempt 2.
    await lifecycle.resume(task);
    await lifecycle.claimSlice(task, { attempt: 2, ...TEST_CLAIM });
    await new Promise((resolve) => setTimeout(resolve, 900));

    const second = await SseClient.open(url, { ...auth, 'last-event-id': first.lastId()! });
    await second.waitFor((c) =>
      c.events().some((f) => f.event === 'task.resumed' && f.data.data.by === 'user' && !f.data.data.input),
    );
    await lifecycle.claimDone(task, { attempt: 2, claim: 'done' });
    const checks = [{ check: 'all_steps_recorded', expected: 3, actual: 3, passed: true }];
    await lifecycle.complete(
      { ...task, attempt: 2 },
      {
        verification: { passed: true, checks, at: Date.now() },
        findings: [],
        lease: { owner: 'watcher', expiresAt: Date.now() + 60_000 },
      },
    );
    await second.finished();

    const received = [...first.events(), ...second.events()];
    expect(received.map((f) => f.id)).toEqual(await streamIdsOf(task.id));
    const last = second.events().at(-1)!;
    expect(last.event).toBe('task.completed');
    expect(last.data.message).toMatchObject({ kind: 'completed', id: `${task.id}-ev-${last.id}` });
    const asked = first.events().find((f) => f.event === 'task.waiting_on_human')!;
    expect(asked.data.message).toMatchObject({ kind: 'human_input' });
    expect(asked.data.message.text).toContain('Go on?');
    const updates = received.filter((f) => f.event === 'task.progress' && f.data.message);
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((f) => f.data.message.kind === 'progress')).toBe(true);
    const logged = (await acme.get(`/v1/tasks/${task.id}/messages`)).body.data;
    const carried = received.filter((f) => f.data.message).map((f) => f.data.message.id);
    // Each message carried exactly once; an event's message may be logged after a later update.
    expect([...carried].sort()).toEqual(logged.map((m: { id: string }) => m.id).sort());
  });

  it('replays an ended task from ?lastEventId= and closes; resuming after its end sends nothing', async () => {
    const created = await newTask();
    const task = (await repo.get(created.id))!;
    await lifecycle.stop(task);
    const [createdId, cancelledId] = await streamIdsOf(task.id);
    const replay = await SseClient.open(`${base}/v1/tasks/${task.id}/events?lastEventId=${createdId}`, auth);
    await replay.finished();
    expect(replay.events().map((f) => [f.id, f.event])).toEqual([[cancelledId, 'task.cancelled']]);
    expect(replay.events()[0].data.message).toMatchObject({ kind: 'control' });
    const after = await SseClient.open(`${base}/v1/tasks/${task.id}/events`, {
      ...auth,
      'last-event-id': cancelledId,
    });
    await after.finished();
    expect(after.events()).toEqual([]);
    const whole = await SseClient.open(`${base}/v1/tasks/${task.id}/events`, auth);
    await whole.finished();
    expect(whole.events().map((f) => f.event)).toEqual(['task.created', 'task.cancelled']);
  });

  it('ends open streams when the API shuts down, so the shutdown is not held up', async () => {
    const task = await newTask();
    const open = await SseClient.open(`${base}/v1/tasks/${task.id}/events`, auth);
    await open.waitFor((c) => c.events().length > 0);
    const started = Date.now();
    await within(api.close(), 5_000, 'the API to close with a stream open');
    await within(open.finished(), 1_000, 'the open stream to end');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
