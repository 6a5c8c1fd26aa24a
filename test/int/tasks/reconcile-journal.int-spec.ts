import { RedisTestContext, newNoopTask, TEST_CLAIM, TaskHarness } from '@vigil/testing';
import { type HeldContext, type JournalEntry } from '@vigil/tasks';

describe('WriteJournal.recordReconciled (reconcile-journal.lua)', () => {
  const ctx = new RedisTestContext('reconcile-journal');
  const { tasks, journal, contexts, lifecycle } = new TaskHarness(ctx);
  afterAll(() => ctx.close());

  it('records a found write only during its recovery, and makes held slice contexts stale', async () => {
    const { task } = await tasks.create('reconciled-1', newNoopTask({ input: { steps: 4 }, totalUnits: 4 }));
    const entry: JournalEntry = {
      state: 'done',
      attempt: 1,
      at: 1,
      result: { id: 'obj_1' },
      reconciled: true,
    };

    // Still queued: not a recovery in progress, nothing is written.
    expect(await journal.recordReconciled(task, 'write:1', entry, { id: 'obj_1' })).toBe(false);
    expect(await ctx.redis.hlen(ctx.keys.journal(task.id))).toBe(0);
    expect((await tasks.get(task.id))!.contextVersion).toBe(0);

    await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
    const running = (await tasks.get(task.id))!;
    await lifecycle.recover(running, {
      reason: 'crashed',
      detail: 'its worker is gone',
      lease: { owner: 'watcher', expiresAt: Date.now() + 60_000 },
    });
    const retrying = (await tasks.get(task.id))!;
    expect(retrying.contextVersion).toBe(0);
    // A context held as of now (nothing recorded yet) would be current until the reconcile.
    const held: HeldContext = {
      attempt: retrying.attempt,
      actions: 0,
      version: 0,
      writer: '',
      context: { doneSteps: new Set(), outputs: new Map(), findings: [] },
    };
    expect((await contexts.loadForSlice(task.id, held)).source).toBe('held');
    expect(await journal.recordReconciled(retrying, 'write:1', entry, { id: 'obj_1' })).toBe(true);
    const reloaded = await contexts.loadForSlice(task.id, held);
    expect(reloaded.source).toBe('stale');
    expect(reloaded.context.outputs.get('write:1')).toEqual({ id: 'obj_1' });

    const after = (await tasks.get(task.id))!;
    expect(after.contextVersion).toBe(1);
    expect(after.completedUnits).toBe(1);
    expect(await ctx.redis.sismember(ctx.keys.doneSteps(task.id), 'write:1')).toBe(1);
    expect(JSON.parse((await ctx.redis.hget(ctx.keys.outputs(task.id), 'write:1'))!)).toEqual({
      id: 'obj_1',
    });
    expect(JSON.parse((await ctx.redis.hget(ctx.keys.journal(task.id), 'write:1'))!)).toEqual(entry);
  });
});
