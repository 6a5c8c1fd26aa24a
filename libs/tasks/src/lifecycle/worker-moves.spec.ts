import { inMemoryLifecycle, TEST_CLAIM } from '@vigil/testing';

const task = { id: 'tsk_1', tenantId: 'acme', model: 'opus' };
const NOW = 1_700_000_000_000;

describe('TaskLifecycle: the Worker’s moves', () => {
  it('claimSlice: queued → running for the attempt, one more slice, who runs it', async () => {
    const { lifecycle, store, slices, wakeups, signals } = inMemoryLifecycle();
    await lifecycle.claimSlice(task, { attempt: 2, ...TEST_CLAIM, now: NOW });
    expect(store.only()).toEqual({
      operation: 'claim_slice',
      to: 'running',
      attempt: 2,
      from: ['queued'],
      increments: { sliceCount: 1 },
      fields: { workerId: 'test-worker', lastHeartbeatAt: NOW, provider: 'scripted', codeVersion: 'test' },
      eventData: {},
      now: NOW,
    });
    expect([slices.published, wakeups.woken, signals.sent]).toEqual([[], [], []]);
  });

  it('continueSlice: written with the steps (no transition), running for the attempt, no job published', async () => {
    const { lifecycle, store, slices, wakeups, signals, continuations } = inMemoryLifecycle();
    expect(await lifecycle.continueSlice(task, { attempt: 2, ...TEST_CLAIM, now: NOW })).toEqual({
      status: 'running',
      attempt: 2,
      due: [],
      from: 'running',
    });
    expect(continuations.continued).toEqual([
      {
        taskId: task.id,
        move: { attempt: 2, workerId: 'test-worker', provider: 'scripted', codeVersion: 'test' },
        now: NOW,
      },
    ]);
    expect([store.applied, slices.published, wakeups.woken, signals.sent]).toEqual([[], [], [], []]);
  });

  it('handOffSlice: queued again, the context kept, then the next slice published', async () => {
    const { lifecycle, store, slices } = inMemoryLifecycle();
    const order: string[] = [];
    const kept = jest.fn(() => order.push(`kept with ${slices.published.length} published`));
    await lifecycle.handOffSlice(task, { attempt: 1, slice: 4, beforeNextSlice: kept, now: NOW });
    expect(store.only()).toEqual({
      operation: 'hand_off_slice',
      to: 'queued',
      attempt: 1,
      from: ['running', 'waiting_on_tool'],
      eventData: {},
      now: NOW,
    });
    expect(order).toEqual(['kept with 0 published']);
    expect(slices.published).toEqual([{ taskId: 'tsk_1', attempt: 1, slice: 5, reason: 'next_slice' }]);
  });

  it('claimDone: verifying with the claim, and the Watcher woken at once', async () => {
    const { lifecycle, store, wakeups } = inMemoryLifecycle();
    await lifecycle.claimDone(task, { attempt: 3, claim: 'all built', now: NOW });
    expect(store.only()).toMatchObject({
      operation: 'claim_done',
      to: 'verifying',
      attempt: 3,
      from: ['running', 'waiting_on_tool'],
      fields: { claim: { summary: 'all built', attempt: 3, at: NOW } },
      eventData: { claim: 'all built' },
    });
    expect(wakeups.woken).toEqual([{ taskId: 'tsk_1', attempt: 3, reason: 'verifying' }]);
  });

  it('askPerson: the agent’s question, with a new answer-link secret each time', async () => {
    const { lifecycle, store, wakeups } = inMemoryLifecycle();
    await lifecycle.askPerson(task, { attempt: 1, question: 'Which account?', now: NOW });
    await lifecycle.askPerson(task, { attempt: 1, question: 'Which account?', now: NOW });
    const [first, second] = store.applied.map(({ command }) => command);
    expect(first).toMatchObject({
      operation: 'ask_person',
      to: 'waiting_on_human',
      statusReason: 'human_input',
      fields: { humanQuestion: 'Which account?', humanInput: null, humanToken: expect.any(String) },
      eventData: { question: 'Which account?' },
    });
    expect(first.fields).not.toHaveProperty('unresolvedWrite');
    expect(first.fields?.humanToken).not.toBe(second.fields?.humanToken);
    expect(wakeups.woken).toEqual([]);
  });

  it('askPerson: an unresolved write waits with its reason and the write', async () => {
    const { lifecycle, store } = inMemoryLifecycle();
    const write = { key: 'write:1', tool: 'create_ticket', args: { title: 'renew' } };
    await lifecycle.askPerson(task, { attempt: 1, question: 'Did it happen?', unresolvedWrite: write });
    expect(store.only()).toMatchObject({
      statusReason: 'unresolved_write',
      fields: { humanQuestion: 'Did it happen?', unresolvedWrite: write },
      eventData: { question: 'Did it happen?', reason: 'unresolved_write' },
    });
  });

  it('awaitChildren: parked on its children, no slice published while they run', async () => {
    const { lifecycle, store, slices } = inMemoryLifecycle();
    const kept = jest.fn();
    const parked = await lifecycle.awaitChildren(task, { attempt: 1, slice: 2, beforeNextSlice: kept });
    expect(parked.status).toBe('waiting_on_tool');
    expect(store.only()).toMatchObject({
      operation: 'await_children',
      to: 'waiting_on_tool',
      statusReason: 'children',
      eventData: { waitingOn: 'children' },
    });
    expect([kept.mock.calls.length, slices.published]).toEqual([0, []]);
  });

  it('awaitChildren: queued at once when its children ended, and the next slice published', async () => {
    const { lifecycle, store, slices } = inMemoryLifecycle();
    store.replyNext({ status: 'queued' });
    const kept = jest.fn();
    await lifecycle.awaitChildren(task, { attempt: 1, slice: 2, beforeNextSlice: kept });
    expect(kept).toHaveBeenCalledTimes(1);
    expect(slices.published).toEqual([{ taskId: 'tsk_1', attempt: 1, slice: 3, reason: 'next_slice' }]);
  });

  it('pauseForMoney: paused for the limit reached, said so in the event', async () => {
    const { lifecycle, store, signals } = inMemoryLifecycle();
    await lifecycle.pauseForMoney(task, { attempt: 1, reason: 'global_spend_limit' });
    expect(store.only()).toMatchObject({
      operation: 'pause_for_money',
      to: 'paused',
      attempt: 1,
      statusReason: 'global_spend_limit',
      eventData: { by: 'limit', reason: 'global_spend_limit', detail: '' },
    });
    expect(signals.sent).toEqual([]);
  });

  it('pauseForMoney and waitForTenantSlot: a tenant’s limits, each with its reason', async () => {
    const { lifecycle, store } = inMemoryLifecycle();
    await lifecycle.pauseForMoney(task, { attempt: 1, reason: 'tenant_daily_budget', detail: 'spent' });
    await lifecycle.waitForTenantSlot(task, {
      attempt: 1,
      wait: { waitingOn: 'tenant_max_running', maxRunning: 2 },
    });
    expect(store.applied.map((applied) => applied.command)).toEqual([
      expect.objectContaining({
        operation: 'pause_for_money',
        statusReason: 'tenant_daily_budget',
        eventData: { by: 'limit', reason: 'tenant_daily_budget', detail: 'spent' },
      }),
      expect.objectContaining({
        operation: 'wait_for_tenant_slot',
        to: 'queued',
        from: ['queued'],
        attempt: 1,
        statusReason: 'tenant_max_running',
        eventData: { waitingOn: 'tenant_max_running', maxRunning: 2 },
      }),
    ]);
  });

  it('failAttempt: the attempt ends for the Watcher to judge, due now, and the Watcher woken', async () => {
    const { lifecycle, store, wakeups } = inMemoryLifecycle();
    await lifecycle.failAttempt(task, {
      attempt: 2,
      reason: 'tool_error',
      detail: '3 errors',
      during: 'slice',
      now: NOW,
    });
    expect(store.only()).toEqual({
      operation: 'fail_attempt',
      to: 'retrying',
      attempt: 2,
      from: ['running', 'waiting_on_tool'],
      failedAttempt: { model: 'opus', reason: 'tool_error', detail: '3 errors' },
      deadlineMs: NOW,
      eventData: { turnFailed: 'tool_error', detail: '3 errors' },
      now: NOW,
    });
    expect(wakeups.woken).toEqual([{ taskId: 'tsk_1', attempt: 2, reason: 'turn_failed' }]);
  });

  it('failAttempt during the claim acts on a queued task (TASK_MAX_SLICES)', async () => {
    const { lifecycle, store } = inMemoryLifecycle();
    await lifecycle.failAttempt(task, { attempt: 1, reason: 'limit', during: 'claim' });
    expect(store.only()).toMatchObject({ from: ['queued'], eventData: { turnFailed: 'limit' } });
    expect(store.only().failedAttempt).toEqual({ model: 'opus', reason: 'limit' });
  });

  it('a refused move has no follow-up', async () => {
    const { lifecycle, store, slices, wakeups } = inMemoryLifecycle();
    store.replyNext(new Error('fenced')).replyNext(new Error('fenced'));
    await expect(lifecycle.handOffSlice(task, { attempt: 1, slice: 1 })).rejects.toThrow('fenced');
    await expect(lifecycle.claimDone(task, { attempt: 1, claim: '' })).rejects.toThrow('fenced');
    expect([slices.published, wakeups.woken]).toEqual([[], []]);
  });
});
