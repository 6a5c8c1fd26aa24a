import { RedisTestContext } from '@vigil/testing';
import { TaskScripts } from '@vigil/tasks';
import {
  ReconcileSchedulersUseCase,
  ScheduleQueue,
  ScheduleStore,
  type ScheduleSpec,
} from '@vigil/schedules';

const spec = (cron: string, timezone: string): ScheduleSpec => ({
  name: 'nightly',
  cron,
  timezone,
  task: { kind: 'noop', input: { steps: 1 } },
  overlap: 'skip',
  catchUpMs: 60_000,
});

/** The job schedulers follow the schedule records (docs/schedules.md, "Reconciling"). */
describe('ReconcileSchedulersUseCase', () => {
  const ctx = new RedisTestContext('sched-reconcile');
  const bull = ctx.scheduleQueue();
  const store = new ScheduleStore(ctx.redis, ctx.keys, new TaskScripts(ctx.redis));
  const queue = new ScheduleQueue(bull);
  const reconciler = new ReconcileSchedulersUseCase(store, queue);
  afterAll(() => ctx.close());

  async function activeSchedule(id: string, cron: string, timezone: string): Promise<void> {
    const schedule = await store.create(id, 'acme', spec(cron, timezone), 10);
    await queue.upsert(schedule);
  }

  /** What a Redis restored without them, or a hand's DEL, leaves: the record and no scheduler. */
  async function deleteSchedulerKeys(id: string): Promise<void> {
    const base = `${ctx.prefix}:${ctx.keys.scheduleQueueName()}`;
    await ctx.redis.del(`${base}:repeat:${id}`);
    await ctx.redis.zrem(`${base}:repeat`, id);
    expect(await bull.getJobScheduler(id)).toBeUndefined();
  }

  it('re-creates a deleted job scheduler with its schedule’s cron and time zone, once', async () => {
    await activeSchedule('sch_berlin', '0 9 * * *', 'Europe/Berlin');
    await activeSchedule('sch_tokyo', '30 6 * * 1', 'Asia/Tokyo');
    const before = await bull.getJobScheduler('sch_berlin');
    await deleteSchedulerKeys('sch_berlin');

    expect(await reconciler.reconcile()).toEqual({ recreated: ['sch_berlin'], removed: [] });
    const after = await bull.getJobScheduler('sch_berlin');
    expect(after).toMatchObject({ pattern: '0 9 * * *', tz: 'Europe/Berlin', next: before?.next });
    expect(await bull.getJobScheduler('sch_tokyo')).toMatchObject({
      pattern: '30 6 * * 1',
      tz: 'Asia/Tokyo',
    });
    // Nothing left to repair: a second pass changes nothing.
    expect(await reconciler.reconcile()).toEqual({ recreated: [], removed: [] });
  });

  it('gives the first fire time missed while the scheduler was gone a job due now, for the fire’s catch-up', async () => {
    const now = Date.now();
    const created = await store.create(
      'sch_minutely',
      'acme',
      spec('* * * * *', 'UTC'),
      10,
      now - 5 * 60_000,
    );
    await queue.upsert(created);
    await deleteSchedulerKeys('sch_minutely');

    expect(await reconciler.reconcile()).toEqual({ recreated: ['sch_minutely'], removed: [] });
    // The first minute after the schedule's creation: the Watcher's fire plans the catch-up from it.
    const firstMissed = (Math.floor((now - 5 * 60_000) / 60_000) + 1) * 60_000;
    const job = await bull.getJob(`repeat:sch_minutely:${firstMissed}`);
    expect(job?.data).toEqual({ tenantId: 'acme', scheduleId: 'sch_minutely' });
    expect(await job?.getState()).toBe('waiting');
    expect(await bull.getJobScheduler('sch_minutely')).toMatchObject({ pattern: '* * * * *', tz: 'UTC' });
    await queue.remove('sch_minutely');
    await store.delete('acme', 'sch_minutely');
    await job?.remove();
  });

  it('removes a job scheduler whose schedule is gone, and one of a paused schedule; never creates one for a paused schedule', async () => {
    await queue.upsert({ ...spec('0 3 * * *', 'UTC'), id: 'sch_orphan', tenantId: 'acme' } as never);
    await activeSchedule('sch_paused_left', '0 4 * * *', 'UTC');
    await store.setState('acme', 'sch_paused_left', 'paused');
    await activeSchedule('sch_paused_clean', '0 5 * * *', 'UTC');
    await store.setState('acme', 'sch_paused_clean', 'paused');
    await queue.remove('sch_paused_clean');

    const report = await reconciler.reconcile();
    expect(report.recreated).toEqual([]);
    expect(report.removed.sort()).toEqual(['sch_orphan', 'sch_paused_left']);
    for (const id of ['sch_orphan', 'sch_paused_left', 'sch_paused_clean'])
      expect(await bull.getJobScheduler(id)).toBeUndefined();
    expect(await bull.getJobScheduler('sch_berlin')).toMatchObject({ pattern: '0 9 * * *' });
  });
});
