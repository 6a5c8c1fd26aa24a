import { parseTaskEvent } from '@vigil/events';
import { HttpClient, RedisTestContext, redisLifecycle, TEST_CLAIM } from '@vigil/testing';
import { LiveOutputChannel, TaskRepository, type LiveEvent, type TaskRecord } from '@vigil/tasks';
import { InProcessApi } from '../../support/in-process-api';
import { SseClient, type SseFrame } from '../../support/sse-client';

/**
 * GET /v1/tasks/:id/events with the model's live output (docs/api.md, "Live model output"): the
 * task's durable events and its `model.delta` / `model.call_abandoned` entries, as a Worker's
 * LiveOutputChannel writes them, through the API in-process.
 */
describe('live model output on the task event stream (SSE)', () => {
  const ctx = new RedisTestContext('notify-live-sse', {
    API_KEYS: 'acme:acme-key-123',
    SSE_HEARTBEAT_MS: '300',
  });
  const repo = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const channel = new LiveOutputChannel(ctx.redis, ctx.keys);
  const { lifecycle } = redisLifecycle(ctx);
  const auth = { authorization: 'Bearer acme-key-123' };
  let api: InProcessApi;
  let acme: HttpClient;

  beforeAll(async () => {
    api = await InProcessApi.start(ctx);
    acme = api.client('acme-key-123');
  });
  afterAll(() => ctx.close());

  const newTask = async (): Promise<TaskRecord> => {
    const created = (await acme.post('/v1/tasks', { kind: 'noop', input: { steps: 3 }, sandbox: true })).body;
    return (await repo.get(created.id as string))!;
  };
  const open = (task: TaskRecord, lastEventId?: string) =>
    SseClient.open(`${api.baseUrl}/v1/tasks/${task.id}/events`, {
      ...auth,
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    });
  const delta = (callId: string, text: string, offset: number, final = false, attempt = 1): LiveEvent => ({
    type: 'model.delta',
    attempt,
    callId,
    text,
    offset,
    ...(final ? { final: true as const } : {}),
  });
  const publish = (task: TaskRecord, ...events: LiveEvent[]) =>
    channel.publish([{ taskId: task.id, events, expire: true }]);
  /** Everything written for the task, in written order: `events:<id>` and `live:<id>`. */
  const written = async (task: TaskRecord): Promise<string[]> => {
    const events = (await ctx.redis.xrange(ctx.keys.events(0), '-', '+'))
      .map(([id, fields]) => parseTaskEvent(0, id, fields))
      .filter((event) => event.taskId === task.id)
      .map((event) => ({ id: event.id, name: `events:${event.id}`, live: 0 }));
    const live = (await ctx.redis.xrange(ctx.keys.liveOutput(task.id), '-', '+')).map(([id]) => ({
      id,
      name: `live:${id}`,
      live: 1,
    }));
    const order = (id: string) => id.split('-').map(Number);
    return [...events, ...live]
      .sort((a, b) => {
        const [am, as] = order(a.id);
        const [bm, bs] = order(b.id);
        // As the stream sends them: by id, the durable event first on a tie.
        return am - bm || as - bs || a.live - b.live;
      })
      .map((entry) => entry.name);
  };
  /** A frame as `events:<id>` or `live:<live id>` (a live frame's id is `<durable>~<live>`). */
  const named = (frame: SseFrame) =>
    frame.event!.startsWith('model.') ? `live:${frame.id!.split('~')[1]}` : `events:${frame.id}`;
  /**
   * Waits into the next millisecond: entries of the two streams written in one millisecond can
   * have equal ids, and then which was written first is not in them.
   */
  const nextMs = async () => {
    const now = Date.now();
    while (Date.now() <= now) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  const isLiveFrame = (frame: SseFrame) => frame.event!.startsWith('model.');
  const durableIds = (frames: SseFrame[]) =>
    frames.filter((f) => !f.event!.startsWith('model.')).map((f) => f.id);

  it('sends deltas between the durable events in the order written, each resumable, durable ids unchanged', async () => {
    const task = await newTask();
    const sse = await open(task);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await nextMs();
    await publish(task, delta('c1', 'Next: ', 0));
    await nextMs();
    await repo.heartbeat(task.id, 1, { currentStep: 'noop_step step:0', completedUnits: 1 }, true);
    await nextMs();
    await publish(task, delta('c1', 'noop_step (step:0).', 6, true));
    await sse.waitFor((c) => c.events().filter((f) => f.event === 'model.delta').length === 2);
    await nextMs();
    await lifecycle.stop(task);
    await sse.finished();

    expect(sse.events().map(named)).toEqual(await written(task));
    const deltas = sse.events().filter((f) => f.event === 'model.delta');
    expect(deltas.map((f) => f.data.data)).toEqual([
      { attempt: 1, callId: 'c1', text: 'Next: ', offset: 0 },
      { attempt: 1, callId: 'c1', text: 'noop_step (step:0).', offset: 6, final: true },
    ]);
    expect(deltas[0].data).toMatchObject({ type: 'model.delta', taskId: task.id, attempt: 1 });
    // A live frame's id carries the last durable id sent before it.
    const before = sse.events()[sse.events().indexOf(deltas[0]) - 1];
    expect(deltas[0].id).toBe(`${before.id}~${deltas[0].id!.split('~')[1]}`);
    // The message log and the durable stream hold no live output.
    const messages = (await acme.get(`/v1/tasks/${task.id}/messages`)).body.data as { text: string }[];
    expect(messages.some((m) => m.text.includes('noop_step (step:0)'))).toBe(false);
    expect((await written(task)).filter((name) => name.startsWith('events:'))).toEqual(
      durableIds(sse.events()).map((id) => `events:${id}`),
    );
  });

  it('a client that resumes from a delta or from a durable event misses no durable event and no kept delta', async () => {
    const task = await newTask();
    const first = await open(task);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await nextMs();
    await publish(task, delta('c1', 'One ', 0));
    await first.waitFor((c) => c.events().some((f) => f.event === 'model.delta'));
    await first.close();
    // Resumed from the delta (a durable event written in the same millisecond may follow it).
    const resumeAt = first.events().findIndex(isLiveFrame);
    const resumeFromDelta = first.events()[resumeAt].id!;
    expect(resumeFromDelta).toContain('~');

    // While nobody listens: durable events and deltas, one call ending and another starting.
    await repo.heartbeat(task.id, 1, { currentStep: 'noop_step step:0', completedUnits: 1 }, true);
    await nextMs();
    await publish(task, delta('c1', 'two.', 4, true));
    await nextMs();
    await repo.heartbeat(task.id, 1, { currentStep: 'noop_step step:1', completedUnits: 2 }, true);
    await nextMs();
    await publish(task, delta('c2', 'Three.', 0, true));

    const second = await open(task, resumeFromDelta);
    await second.waitFor((c) => c.events().some((f) => f.data?.data?.text === 'Three.'));
    await second.close();
    const everything = await written(task);
    expect([...first.events().slice(0, resumeAt + 1), ...second.events()].map(named)).toEqual(everything);

    // From a durable event in the middle: every durable event after it, and every delta after it.
    const middle = second.events().find((f) => f.event === 'task.progress')!;
    const third = await open(task, middle.id);
    await third.waitFor((c) => c.events().some((f) => f.data?.data?.text === 'Three.'));
    await third.close();
    const after = everything.slice(everything.indexOf(`events:${middle.id}`) + 1);
    expect(third.events().map(named)).toEqual(after);
    await lifecycle.stop(task);
  });

  it('a stop mid-call: the stream sends task.cancelled, then waits for the call’s model.call_abandoned and ends', async () => {
    const task = await newTask();
    const sse = await open(task);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await publish(task, delta('c1', 'Half a sen', 0));
    await sse.waitFor((c) => c.events().some((f) => f.event === 'model.delta'));
    await lifecycle.stop(task);
    await sse.waitFor((c) => c.events().some((f) => f.event === 'task.cancelled'));
    // The Worker's abort comes after the stop is recorded (it is told by a signal).
    await publish(task, { type: 'model.call_abandoned', attempt: 1, callId: 'c1', reason: 'stopped' });
    await sse.finished();
    expect(
      sse
        .events()
        .map((f) => f.event)
        .slice(-3),
    ).toEqual(['model.delta', 'task.cancelled', 'model.call_abandoned']);
    expect(sse.events().at(-1)!.data.data).toEqual({ attempt: 1, callId: 'c1', reason: 'stopped' });
  });

  it('ends after the task’s last event even when a call never says it ended (a dead Worker)', async () => {
    const task = await newTask();
    const sse = await open(task);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await publish(task, delta('c1', 'Cut', 0));
    await sse.waitFor((c) => c.events().some((f) => f.event === 'model.delta'));
    await lifecycle.stop(task);
    await sse.finished();
    expect(sse.events().at(-1)!.event).toBe('task.cancelled');
  });

  it('a recovery closes the replaced attempt’s open calls, and drops what they still send', async () => {
    const task = await newTask();
    const sse = await open(task);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await publish(task, delta('c1', 'Working on', 0));
    await sse.waitFor((c) => c.events().some((f) => f.event === 'model.delta'));
    const lease = { owner: 'watcher-1', expiresAt: Date.now() + 60_000 };
    await lifecycle.recover(task, { reason: 'crashed', detail: 'worker gone', lease });
    await sse.waitFor((c) => c.events().some((f) => f.event === 'model.call_abandoned'));
    // A Worker that was only partitioned still writes, then learns it was replaced.
    await publish(task, delta('c1', ' it', 10), {
      type: 'model.call_abandoned',
      attempt: 1,
      callId: 'c1',
      reason: 'recovered',
    });
    await lifecycle.requeueForRetry(
      { ...task, attempt: 2 },
      { model: 'opus', retryContext: { retryNumber: 1, reason: 'crashed', lastVerifiedStep: 0 }, lease },
    );
    await lifecycle.claimSlice(task, { attempt: 2, ...TEST_CLAIM });
    await publish(task, delta('k2', 'Again.', 0, true, 2));
    await sse.waitFor((c) => c.events().some((f) => f.data?.data?.callId === 'k2'));
    await lifecycle.stop(task);
    await sse.finished();
    const live = sse.events().filter((f) => f.event!.startsWith('model.'));
    expect(live.map((f) => [f.event, f.data.data.callId, f.data.data.text ?? f.data.data.reason])).toEqual([
      ['model.delta', 'c1', 'Working on'],
      ['model.call_abandoned', 'c1', 'recovered'],
      ['model.delta', 'k2', 'Again.'],
    ]);
    // The abandonment follows the first event of the later attempt.
    const i = sse.events().findIndex((f) => f.event === 'model.call_abandoned');
    expect(sse.events()[i - 1].data.attempt).toBe(2);
  });

  it('takes a live event’s id as Last-Event-ID and refuses what is not one of its ids', async () => {
    const task = await newTask();
    await lifecycle.stop(task);
    const status = async (id: string) =>
      (await acme.request('GET', `/v1/tasks/${task.id}/events`, undefined, { 'last-event-id': id })).status;
    expect(await status('1-0~2-0')).toBe(200);
    expect(await status('1-0~x')).toBe(400);
    expect(await status('1-0~2-0~3-0')).toBe(400);
    expect(await status('~2-0')).toBe(400);
  });
});
