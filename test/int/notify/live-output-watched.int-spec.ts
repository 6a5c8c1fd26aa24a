import { LiveModelOutput, WatchedTasks } from '@vigil/agent';
import { RedisTestContext, redisLifecycle } from '@vigil/testing';
import {
  LIVE_WATCH_TTL_MS,
  LiveOutputChannel,
  LiveWatchers,
  TaskRepository,
  type TaskRecord,
} from '@vigil/tasks';
import { InProcessApi } from '../../support/in-process-api';
import { SseClient, type SseFrame } from '../../support/sse-client';

/**
 * Live model output only while someone watches (docs/api.md, "Live model output"): an open event
 * stream marks its task watched; a Worker's live output (LiveModelOutput with its WatchedTasks, on
 * the real channel) writes nothing for a task nobody watches, and a watcher who comes mid-call gets
 * that call's text from its start, then the rest as it comes.
 */
describe('live model output is written only while a client watches', () => {
  const ctx = new RedisTestContext('notify-live-watched', { API_KEYS: 'acme:acme-key-123' });
  const repo = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const watchers = new LiveWatchers(ctx.redis, ctx.keys);
  const { lifecycle } = redisLifecycle(ctx);
  let api: InProcessApi;
  let output: LiveModelOutput;

  beforeAll(async () => {
    api = await InProcessApi.start(ctx);
  });
  beforeEach(() => {
    // A Worker's publisher, as the agent module wires it.
    output = new LiveModelOutput(new LiveOutputChannel(ctx.redis, ctx.keys), new WatchedTasks(watchers));
  });
  afterEach(() => output.onApplicationShutdown());
  afterAll(() => ctx.close());

  const newTask = async (): Promise<TaskRecord> => {
    const created = (
      await api.client('acme-key-123').post('/v1/tasks', { kind: 'noop', input: { steps: 3 }, sandbox: true })
    ).body;
    return (await repo.get(created.id as string))!;
  };
  const follow = (task: TaskRecord) =>
    SseClient.open(`${api.baseUrl}/v1/tasks/${task.id}/events`, { authorization: 'Bearer acme-key-123' });
  const isLive = (frame: SseFrame) => frame.event!.startsWith('model.');
  /** Lets this turn's publish go out and every command sent before now be answered. */
  const settled = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    await ctx.redis.ping();
  };

  it('an open event stream marks its task watched, with an expiry', async () => {
    const task = await newTask();
    expect(await watchers.isWatched(task.id)).toBe(false);
    const sse = await follow(task);
    await sse.waitFor(() => true);
    expect(await watchers.isWatched(task.id)).toBe(true);
    const ttl = await ctx.redis.pttl(ctx.keys.liveWatched(task.id));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LIVE_WATCH_TTL_MS);
    await sse.close();
    await lifecycle.stop(task);
  });

  it('writes no delta while nobody watches; a watcher who comes mid-call gets the call from its start', async () => {
    const task = await newTask();
    const calls = output.forSlice(task.id, 1);
    // The slice's lookup is answered before the calls run (one connection answers in order).
    await watchers.isWatched(task.id);
    const unseen = calls.open();
    unseen.text('Nobody reads this. ');
    unseen.end();
    const ongoing = calls.open();
    ongoing.text('Before the watcher came. ');
    await settled();
    expect(await ctx.redis.exists(ctx.keys.liveOutput(task.id))).toBe(0);

    const sse = await follow(task);
    // Within a lookup interval the Worker learns of the watcher and publishes what the call kept.
    await sse.waitFor((client) => client.events().some(isLive));
    ongoing.text('And after.');
    ongoing.end();
    await sse.waitFor((client) => client.events().some((frame) => frame.data?.data?.final));
    await lifecycle.stop(task);
    await sse.finished();

    const deltas = sse.events().filter((frame) => frame.event === 'model.delta');
    expect(new Set(deltas.map((frame) => frame.data.data.callId))).toEqual(new Set([ongoing.callId]));
    expect(deltas[0].data.data.offset).toBe(0);
    expect(deltas.map((frame) => frame.data.data.text).join('')).toBe('Before the watcher came. And after.');
  });
});
