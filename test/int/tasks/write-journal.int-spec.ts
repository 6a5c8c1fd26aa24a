import { RedisTestContext, newNoopTask, TEST_CLAIM, TaskHarness } from '@vigil/testing';
import { StaleAttemptError, TaskNotActiveError, TaskNotFoundError } from '@vigil/tasks';

describe('WriteJournal (journal-intent.lua)', () => {
  const ctx = new RedisTestContext('write-journal');
  const { tasks, journal, lifecycle } = new TaskHarness(ctx);
  afterAll(() => ctx.close());

  it('journals an intent once; a later begin sees it unknown, or done once its result is recorded', async () => {
    const { task } = await tasks.create('wj-1', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    expect(await journal.begin(task.id, 1, 'write:0', { name: 'a' })).toEqual({ state: 'new' });
    expect(await journal.begin(task.id, 1, 'write:0', { name: 'a' })).toMatchObject({
      state: 'unknown',
      entry: { state: 'intent', attempt: 1, args: { name: 'a' } },
    });
    await ctx.redis.hset(
      ctx.keys.journal(task.id),
      'write:1',
      JSON.stringify({ state: 'done', attempt: 1, at: 1, result: { id: '42' } }),
    );
    expect(await journal.begin(task.id, 1, 'write:1', {})).toMatchObject({
      state: 'done',
      entry: { result: { id: '42' } },
    });
  });

  it('refuses a stale attempt, a task not running and a missing task, with what is stored', async () => {
    const { task } = await tasks.create('wj-2', newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await lifecycle.failAttempt(task, { attempt: 1, reason: 'hung_call', during: 'slice' });
    const stale = await journal.begin(task.id, 1, 'write:0', {}).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(StaleAttemptError);
    expect(stale).toMatchObject({ writerAttempt: 1, currentAttempt: 2 });
    await expect(journal.begin(task.id, 2, 'write:0', {})).rejects.toBeInstanceOf(TaskNotActiveError);
    await expect(journal.begin('missing', 1, 'write:0', {})).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(await ctx.redis.hlen(ctx.keys.journal(task.id))).toBe(0);
  });
});
