import { clusterSlot } from '@vigil/redis';
import { ScheduleStore } from '@vigil/schedules';
import {
  RedisTestContext,
  newNoopTask,
  observeScriptCalls,
  TEST_CLAIM,
  redisLifecycle,
} from '@vigil/testing';
import {
  ChildTaskRepository,
  ConversationStore,
  LiveOutputChannel,
  MessageLog,
  SpendLedger,
  SteeringLog,
  StepRecorder,
  TASK_SCRIPT_KEYS,
  TaskContextStore,
  TaskScripts,
  TaskRepository,
  TenantSlots,
  WriteJournal,
} from '@vigil/tasks';

/** Every script call must touch a single Redis Cluster slot: the task's shard tag. */
describe.each(['1', '4'])('script keys with SHARDS=%s', (shards) => {
  const ctx = new RedisTestContext(`slots${shards}`, { SHARDS: shards });
  let observed: ReturnType<typeof observeScriptCalls>;

  beforeAll(() => {
    observed = observeScriptCalls();
  });
  afterAll(async () => {
    observed.restore();
    await ctx.close();
  });

  it('keeps each call inside one slot, the slot of its task and its slice queue', async () => {
    const { calls } = observed;
    const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
    const { lifecycle } = redisLifecycle(ctx);
    const recorder = new StepRecorder(ctx.redis, ctx.keys, ctx.config);
    const journal = new WriteJournal(ctx.redis, ctx.keys);
    const contexts = new TaskContextStore(ctx.redis, ctx.keys);
    const messages = new MessageLog(ctx.redis, ctx.keys);
    const spend = new SpendLedger(ctx.redis, ctx.keys);
    const steering = new SteeringLog(ctx.redis, ctx.keys, ctx.config);
    const shardsSeen = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const id = `slot-task-${i}`;
      shardsSeen.add(ctx.keys.shardOf(id));
      const { task } = await tasks.create(id, newNoopTask({ tenantId: `tenant${i % 3}` }));
      await contexts.loadForSlice(id);
      // An instruction while it runs: the steering list is one of the task's keys (docs/api.md, "Steering").
      await steering.give(`tenant${i % 3}`, id, { id: 'st_slots', text: 'skip the EU sites' });
      await lifecycle.claimSlice(task, { attempt: 1, ...TEST_CLAIM });
      await tasks.heartbeat(id, 1, { currentStep: 'x' }, true);
      await journal.begin(id, 1, `step:${i}`, { index: i });
      await spend.reserveTask(id, 1, 0.01, 0.005);
      await recorder.record({
        taskId: id,
        attempt: 1,
        action: {
          attempt: 1,
          slice: 1,
          tool: 'noop_step',
          key: `step:${i}`,
          args: {},
          startedAt: 0,
          durationMs: 0,
        },
        succeeded: true,
        currentStep: 'noop_step',
        artifacts: [
          { id: 'c'.repeat(64), tool: 'noop_step', mimeType: 'image/png', bytes: 1, createdAt: '' },
        ],
      });
      await lifecycle.failAttempt(task, { attempt: 1, reason: 'hung_call', during: 'slice' });
      const stored = (await tasks.get(id))!;
      await journal.recordReconciled(stored, `step:${i}`, { state: 'done', attempt: 2, at: 0 }, {});
      // Refused (the task waits on no unresolved write), but its keys are what counts here.
      await journal.resolveUnresolved(id, 'not_done', null).catch(() => undefined);
      await tasks.deferSweep(stored, 'deadline', Date.now());
      const message = {
        id: `${id}-m`,
        taskId: id,
        kind: 'agent' as const,
        text: 'hi',
        sentAt: '',
        attempt: 2,
      };
      await messages.append(message, false, [], Date.now());
      await messages.claimUpdate(id, 1, null, [], { now: Date.now(), intervalMs: 1000, streamMaxLen: 100 });
    }
    const conversations = new ConversationStore(ctx.redis, ctx.keys);
    await conversations.claimMessage('tenant0', 'conv-1', 'm1');
    const entry = { role: 'user' as const, text: 'hi', at: 0 };
    await conversations.recordTurn('tenant0', 'conv-1', {
      user: entry,
      reply: entry,
      messageId: 'm1',
      startedTaskId: 'slot-task-0',
      active: true,
    });
    // A child on its parent's shard: its registration and its end touch the parent's keys too.
    const children = new ChildTaskRepository(ctx.redis, ctx.keys, ctx.config);
    const { task: parent } = await tasks.create('slot-parent', newNoopTask());
    const childId = children.childId(parent.id, 'subtask:1');
    await tasks.create(childId, newNoopTask({ parentId: parent.id }));
    await children.register(parent.id, childId);
    await lifecycle.stop({ id: childId, tenantId: 'acme' });
    // Retention removes a finished child: its keys and its parent's, one slot.
    const ended = (await tasks.get(childId))!;
    await lifecycle.removeExpired({
      id: childId,
      tenantId: 'acme',
      parentId: parent.id,
      finishedAt: ended.finishedAt!,
    });
    // Live model output of every task at once: one call per shard among them.
    await new LiveOutputChannel(ctx.redis, ctx.keys).publish(
      Array.from({ length: 12 }, (_, i) => ({
        taskId: `slot-task-${i}`,
        events: [{ type: 'model.delta' as const, attempt: 1, callId: 'c1', text: 'x', offset: 0 }],
        expire: true,
      })),
    );
    await spend.reserveShared(0.01, { tenantId: 'acme', day: '2026-12-02' });
    const slots = new TenantSlots(ctx.redis, ctx.keys);
    const rules = { maxRunning: 2, weight: 1, fairShare: true };
    await slots.enqueue('acme', { taskId: 'slot-task-2', jobId: 'slot-task-2-a1-s1' }, rules);
    await slots.claim('acme', { taskId: 'slot-task-1', jobId: 'slot-task-1-a1-s1' }, rules, {
      leaseMs: 1000,
      staleMs: 1000,
    });
    await slots.release('acme', 'slot-task-1', 1000);
    // The scripts read other tenants' places by name: every tenant's keys share the one tag.
    expect(clusterSlot(ctx.keys.tenantSlots('other').running)).toBe(
      clusterSlot(ctx.keys.tenantSlots('acme').tenants),
    );
    // A schedule's life: every schedule key carries one tag, whatever the tenant.
    const schedules = new ScheduleStore(ctx.redis, ctx.keys, new TaskScripts(ctx.redis));
    const spec = {
      name: 'nightly',
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      task: { kind: 'noop', input: { steps: 1 } },
      overlap: 'skip' as const,
      catchUpMs: 60_000,
    };
    await schedules.create('sch_slots', 'acme', spec, 10);
    await schedules.setState('acme', 'sch_slots', 'paused');
    await schedules.setState('acme', 'sch_slots', 'active');
    await schedules.claimFire('acme', 'sch_slots', 1_000, { manual: true, leaseMs: 1000 });
    await schedules.recordRun(
      'sch_slots',
      { fireTime: 1_000, firedAt: 1_000, trigger: 'manual', outcome: 'skipped_overlap' },
      { release: 1_000 },
    );
    await schedules.delete('acme', 'sch_slots');
    // Every task script ran; the global spend counter is one key of its own, outside every shard,
    // with each tenant's day counter in its slot; every tenant's running places share one slot.
    expect(new Set(calls.map((call) => call.name))).toEqual(new Set(Object.keys(TASK_SCRIPT_KEYS)));
    const global = calls.filter((call) => call.name === 'reserve-global-spend');
    expect(global.map((call) => call.keys)).toEqual([
      [ctx.keys.spend(), ctx.keys.tenantDaySpend('acme', '2026-12-02')],
    ]);
    expect(clusterSlot(ctx.keys.tenantDaySpend('acme', '2026-12-02'))).toBe(clusterSlot(ctx.keys.spend()));
    for (const call of calls.filter((c) => c.name.includes('tenant-slot'))) {
      expect(new Set(call.keys.map(clusterSlot)).size).toBe(1);
    }
    for (const call of calls.filter((c) => c.name.includes('conversation'))) {
      expect(new Set(call.keys.map(clusterSlot)).size).toBe(1);
    }
    const scheduleSlots = new Set(
      calls.filter((c) => c.name.includes('schedule')).flatMap((c) => c.keys.map(clusterSlot)),
    );
    expect(scheduleSlots).toEqual(new Set([clusterSlot(ctx.keys.schedule('sch_other'))]));
    for (const call of calls.filter(
      (c) =>
        c.name !== 'reserve-global-spend' &&
        !c.name.includes('conversation') &&
        !c.name.includes('schedule') &&
        !c.name.includes('tenant-slot'),
    )) {
      const slots = new Set(call.keys.map(clusterSlot));
      expect({ script: call.name, slots: slots.size }).toEqual({ script: call.name, slots: 1 });
      const taskKey = call.keys[0];
      const shard = Number(/\{s(\d+)\}/.exec(taskKey)![1]);
      expect(clusterSlot(`${ctx.prefix}:${ctx.keys.sliceQueueName(shard)}:wait`)).toBe(clusterSlot(taskKey));
    }
    // The artifact list is one of the task's keys: listed with the step, removed with the task.
    for (const name of ['record-steps', 'forget-task'] as const) {
      const call = calls.find((c) => c.name === name)!;
      const taskId = call.keys.map((key) => /:task:([^:]+)$/.exec(key)?.[1]).find(Boolean)!;
      expect(call.keys).toContain(ctx.keys.artifacts(taskId));
    }
    if (shards === '4') expect(shardsSeen.size).toBeGreaterThan(1);
  });
});
