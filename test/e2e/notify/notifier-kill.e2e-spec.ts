import { parseTaskEvent } from '@vigil/events';
import { eventMessageId, NOTIFIER_GROUP } from '@vigil/notify';
import { AppProcess, newNoopTask, RedisTestContext, redisLifecycle } from '@vigil/testing';
import { MessageLog, TaskRepository } from '@vigil/tasks';
import { assertBuilt, sleep, startAll } from '../../support/processes';

type Pending = [id: string, consumer: string, idleMs: number, deliveries: number][];

/**
 * kill -9 of a notifier that holds events it read but never handled: a frozen process (SIGSTOP)
 * blocked in XREADGROUP is still handed the next events by Redis, then it is killed. Another
 * notifier process must claim them: every event gets its message, and none gets two.
 */
describe('notifier processes: a killed consumer’s events are claimed', () => {
  const ctx = new RedisTestContext('notify-orphans');
  const repo = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const { lifecycle } = redisLifecycle(ctx);
  const log = new MessageLog(ctx.redis, ctx.keys);
  const env = (extra: Record<string, string>) =>
    ctx.env({ NOTIFIER_CLAIM_IDLE_MS: '1500', USER_UPDATE_INTERVAL_MS: '600000', ...extra });
  const stream = ctx.keys.events(0);
  let apps: AppProcess[] = [];

  beforeAll(() => assertBuilt());

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await ctx.close();
  });

  const pending = async () => (await ctx.redis.xpending(stream, NOTIFIER_GROUP, '-', '+', 100)) as Pending;

  it('no event lost, no message sent twice', async () => {
    const [frozen] = (apps = await startAll([['notifier', 'NOTIFIER_PORT']], env));
    const { task } = await repo.create('orphans', newNoopTask());
    let paused = false;
    let toggles = 0;
    // Pause and resume alternately: each is an event that must become exactly one control message.
    const toggle = async () => {
      if (paused) await lifecycle.resume(task);
      else await lifecycle.pause(task);
      paused = !paused;
      toggles++;
    };

    let held: Pending = [];
    for (let round = 0; round < 8 && held.length === 0; round++) {
      frozen.signal('SIGSTOP');
      await toggle();
      await sleep(150);
      held = await pending();
      // It was between two reads when frozen: let it run, handle that event, and try again.
      if (held.length === 0) {
        frozen.signal('SIGCONT');
        await sleep(300);
      }
    }
    expect(held.length).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) await toggle();
    frozen.signal('SIGKILL');
    await frozen.exited();

    const [rescuer] = await startAll([['notifier', 'NOTIFIER_PORT']], env);
    apps.push(rescuer);
    const events = (await ctx.redis.xrange(stream, '-', '+'))
      .map(([id, fields]) => parseTaskEvent(0, id, fields))
      .filter((event) => event.type === 'task.paused' || event.type === 'task.resumed');
    const deadline = Date.now() + 10_000;
    while (
      ((await pending()).length > 0 || (await log.list(task.id)).length < events.length) &&
      Date.now() < deadline
    )
      await sleep(100);

    expect(await pending()).toEqual([]);
    const messages = await log.list(task.id);
    // The claimed ones arrive late, so the log order may differ from the stream order; the set may not.
    expect(messages.map((m) => m.id).sort()).toEqual(
      events.map((event) => eventMessageId(task.id, event.id)).sort(),
    );
    expect(events).toHaveLength(toggles);
    expect(messages.every((m) => m.kind === 'control')).toBe(true);
    // Every held event that yields a message (a pause or resume; task.created does not) got it.
    const toggleIds = new Set(events.map((event) => event.id));
    const heldToggles = held.filter(([id]) => toggleIds.has(id));
    for (const [id] of heldToggles) expect(messages.map((m) => m.id)).toContain(eventMessageId(task.id, id));
    rescuer.signal('SIGTERM');
    expect(await rescuer.exited()).toEqual({ code: 0, signal: null });
  }, 40_000);
});
