import type { INestApplicationContext } from '@nestjs/common';
import { SupervisorSweep, TaskSupervisor } from '@vigil/supervisor';
import { RedisTestContext, newNoopTask, startWatcherContext } from '@vigil/testing';
import { IllegalTransitionError, TaskRepository, TaskStatus } from '@vigil/tasks';

/** A stopped task is never recovered, verified or retried, whatever a Watcher saw before the stop. */
describe('stopped tasks and the watcher', () => {
  const ctx = new RedisTestContext('stopped', { STALE_AFTER_MS: '1000', HEARTBEAT_INTERVAL_MS: '100' });
  let app: INestApplicationContext;
  let tasks: TaskRepository;

  beforeAll(async () => {
    app = await startWatcherContext(ctx);
    tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  });
  afterAll(() => ctx.close());

  it.each<[string, TaskStatus[]]>([
    ['stale while running', ['running']],
    ['claimed done', ['running', 'verifying']],
    ['failed a turn', ['running', 'retrying']],
    ['queued with its job gone', []],
  ])('a task %s, then stopped, is left alone', async (_, path) => {
    const longAgo = Date.now() - 60_000;
    const { task } = await tasks.create(`stopped-${path.join('-') || 'queued'}`, newNoopTask(), '', longAgo);
    for (const status of path) {
      await tasks.transition(
        task,
        status,
        {
          attempt: 1,
          ...(status === 'retrying'
            ? { failedAttempt: { model: 'opus', reason: 'tool_error' as const } }
            : {}),
        },
        longAgo,
      );
    }
    const seen = (await tasks.get(task.id))!;
    await tasks.transition(task, 'cancelled');
    const before = await ctx.redis.hgetall(ctx.keys.task(task.id));
    const events = await ctx.redis.xlen(ctx.keys.events(0));

    // The Watcher acts on what it saw before the stop, as a racing replica would: its read of the
    // record returns the copy taken before the stop, then every write it makes meets the stop.
    const supervisor = app.get(TaskSupervisor);
    const read = jest.spyOn(app.get(TaskRepository, { strict: false }), 'get');
    for (const suspicion of ['deadline', 'verifying', 'expired', 'worker_gone'] as const) {
      // (A queued task's decision needs no transition, so it reads the record as it is now.)
      if (seen.status !== 'queued') read.mockResolvedValueOnce(seen);
      expect(await supervisor.inspect(task.id, suspicion)).toBe('nothing');
    }
    read.mockRestore();
    await app.get(SupervisorSweep).tick(Date.now() + 10 * 3_600_000);
    // Writes from the copy seen before the stop are refused by the script itself.
    if (seen.status !== 'queued') {
      await expect(
        tasks.transition(seen, 'retrying', {
          attempt: seen.attempt,
          from: [seen.status],
          failedAttempt: { model: 'opus', reason: 'frozen' },
        }),
      ).rejects.toBeInstanceOf(IllegalTransitionError);
    }
    await expect(
      tasks.transition(seen, 'queued', { attempt: seen.attempt, from: [seen.status] }),
    ).rejects.toBeInstanceOf(IllegalTransitionError);
    expect(await ctx.redis.hgetall(ctx.keys.task(task.id))).toEqual(before);
    expect(await ctx.redis.xlen(ctx.keys.events(0))).toBe(events);
    expect(seen.status).toBe(path[path.length - 1] ?? 'queued');
  });
});
