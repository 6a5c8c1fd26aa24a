import { RedisTestContext, newNoopTask, TEST_CLAIM, TaskHarness } from '@vigil/testing';
import { type JournalEntry, TaskNotActiveError } from '@vigil/tasks';

describe('WriteJournal.resolveUnresolved (resolve-unresolved-write.lua)', () => {
  const ctx = new RedisTestContext('resolve-unresolved');
  const { tasks, journal, contexts, lifecycle } = new TaskHarness(ctx);
  afterAll(() => ctx.close());

  /** A task whose slice found `write:1`'s outcome unknown and began waiting for a person. */
  async function waiting(id: string) {
    const { task } = await tasks.create(id, newNoopTask());
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    expect((await journal.begin(id, 1, 'write:1', { title: 'renew' })).state).toBe('new');
    const running = (await tasks.get(id))!;
    await lifecycle.askPerson(running, {
      attempt: 1,
      question: 'did it happen?',
      unresolvedWrite: { key: 'write:1', tool: 'create_ticket', args: { title: 'renew' } },
    });
    return (await tasks.get(id))!;
  }
  const entry = async (id: string): Promise<JournalEntry | null> => {
    const raw = await ctx.redis.hget(ctx.keys.journal(id), 'write:1');
    return raw ? (JSON.parse(raw) as JournalEntry) : null;
  };

  it('"done" settles the write with the answer as its result, once; the step counts as done', async () => {
    const before = await waiting('resolve-done');
    expect(await journal.resolveUnresolved(before.id, 'done', 'TCK-9', 1234)).toBe('settled');
    expect(await entry(before.id)).toEqual({
      state: 'done',
      attempt: 1,
      at: 1234,
      args: { title: 'renew' },
      result: 'TCK-9',
      resolvedBy: 'person',
    });
    const context = await contexts.load(before.id);
    expect(context.doneSteps.has('write:1')).toBe(true);
    expect(context.outputs.get('write:1')).toBe('TCK-9');
    const after = (await tasks.get(before.id))!;
    expect(after).toMatchObject({
      status: 'waiting_on_human',
      completedUnits: 1,
      contextVersion: before.contextVersion + 1,
    });
    expect(await ctx.redis.hexists(ctx.keys.task(before.id), 'unresolvedWrite')).toBe(0);
    // A repeated answer finds nothing left to settle and changes nothing.
    expect(await journal.resolveUnresolved(before.id, 'not_done', null)).toBe('already');
    expect((await entry(before.id))?.state).toBe('done');
  });

  it('"not_done" removes the intent, so the write is made again', async () => {
    const task = await waiting('resolve-not-done');
    expect(await journal.resolveUnresolved(task.id, 'not_done', 'not there')).toBe('settled');
    expect(await entry(task.id)).toBeNull();
    expect((await contexts.load(task.id)).doneSteps.size).toBe(0);
    await lifecycle.answer((await tasks.get(task.id))!, { text: 'not there', resolution: 'not_done' });
    await lifecycle.claimSlice((await tasks.get(task.id))!, { attempt: 1, ...TEST_CLAIM });
    expect((await journal.begin(task.id, 1, 'write:1', { title: 'renew' })).state).toBe('new');
  });

  it('is refused unless the task waits on an unresolved write', async () => {
    const { task } = await tasks.create('resolve-refused', newNoopTask());
    await expect(journal.resolveUnresolved(task.id, 'done', 'x')).rejects.toThrow(TaskNotActiveError);
    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    await journal.begin(task.id, 1, 'write:1', {});
    await lifecycle.askPerson((await tasks.get(task.id))!, { attempt: 1, question: 'which colour?' });
    await expect(journal.resolveUnresolved(task.id, 'done', 'x')).rejects.toThrow(TaskNotActiveError);
    expect((await entry(task.id))?.state).toBe('intent');
  });
});
