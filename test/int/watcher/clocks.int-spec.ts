import { RedisTestContext, newNoopTask, TEST_CLAIM, WatcherHarness } from '@vigil/testing';

const MAX_ACTIVE_MS = 10_000;
const HUMAN_WAIT_MS = 5_000;

/** TASK_MAX_DURATION_MS counts active time only; a question has its own deadline; a pause has none. */
describe('task clocks', () => {
  const ctx = new RedisTestContext('clocks', {
    TASK_MAX_DURATION_MS: String(MAX_ACTIVE_MS),
    HUMAN_WAIT_TIMEOUT_MS: String(HUMAN_WAIT_MS),
  });
  const watcher = new WatcherHarness(ctx);
  const { tasks, lifecycle } = watcher;
  const expiryOf = async (id: string) => {
    const score = await ctx.redis.zscore(ctx.keys.expiryIndex(0), id);
    return score === null ? null : Number(score);
  };

  beforeAll(() => watcher.start());
  afterAll(() => ctx.close());

  it('adds up active time across a pause, which stops the clock and takes the task out of the expiry index', async () => {
    const t0 = 1_000_000;
    const { task } = await tasks.create('clock-1', newNoopTask(), '', t0);
    expect(await expiryOf(task.id)).toBe(t0 + MAX_ACTIVE_MS);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM, now: t0 + 1000 });
    await lifecycle.pause(task, { now: t0 + 4000 });
    const paused = (await tasks.get(task.id))!;
    expect(paused).toMatchObject({ activeMs: 4000, activeSince: null, statusReason: 'user' });
    expect(await expiryOf(task.id)).toBeNull();
    // An hour paused: nothing is due, and a sweep that looks anyway finds no clock to run out.
    expect(await watcher.supervisor.inspect(task.id, 'expired', t0 + 3_600_000)).toBe('nothing');
    expect((await tasks.get(task.id))!.status).toBe('paused');

    await lifecycle.resume(paused, { now: t0 + 3_600_000 });
    const resumed = (await tasks.get(task.id))!;
    expect(resumed).toMatchObject({ activeMs: 4000, activeSince: t0 + 3_600_000, statusReason: null });
    // The 6 s of active time left, from the resume.
    expect(await expiryOf(task.id)).toBe(t0 + 3_600_000 + 6000);
    expect(await watcher.supervisor.inspect(task.id, 'expired', t0 + 3_600_000 + 5000)).not.toBe('failed');
    expect(await watcher.supervisor.inspect(task.id, 'expired', t0 + 3_600_000 + 6000)).toBe('failed');
    const failed = (await tasks.get(task.id))!;
    expect(failed.status).toBe('failed');
    expect(failed.failure).toMatchObject({
      reason: 'limit',
      detail: expect.stringContaining('of active time'),
    });
  });

  it('fails a question left unanswered for HUMAN_WAIT_TIMEOUT_MS, saying so, and not a moment before', async () => {
    const t0 = Date.now();
    const { task } = await tasks.create('clock-2', newNoopTask(), '', t0);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM, now: t0 });
    await lifecycle.askPerson(task, { attempt: 1, question: 'Which account should I use?', now: t0 + 100 });
    const waiting = (await tasks.get(task.id))!;
    expect(waiting).toMatchObject({
      humanDeadlineAt: t0 + 100 + HUMAN_WAIT_MS,
      activeMs: 100,
      statusReason: 'human_input',
    });
    expect(await expiryOf(task.id)).toBe(t0 + 100 + HUMAN_WAIT_MS);
    const supervisor = watcher.supervisor;
    expect(await supervisor.inspect(task.id, 'expired', t0 + HUMAN_WAIT_MS)).toBe('nothing');
    expect(await supervisor.inspect(task.id, 'expired', t0 + 100 + HUMAN_WAIT_MS)).toBe('failed');
    const failed = (await tasks.get(task.id))!;
    expect(failed.status).toBe('failed');
    expect(failed.failure).toMatchObject({
      reason: 'limit',
      detail: expect.stringContaining('the question "Which account should I use?" went unanswered'),
    });
  });
});
