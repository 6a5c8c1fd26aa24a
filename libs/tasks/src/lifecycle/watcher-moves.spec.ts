import { inMemoryLifecycle } from '@vigil/testing';
import type { StructuredFailure, Verification } from '../task.types';

const task = {
  id: 'tsk_1',
  tenantId: 'acme',
  attempt: 2,
  model: 'gemini',
  status: 'retrying' as const,
  claim: { summary: 'built 5 ad sets', attempt: 2, at: 1 },
  spentUsd: 0.25,
  sliceCount: 7,
};
const lease = { owner: 'watcher-1', expiresAt: 1_700_000_060_000 };
const owner = { recoveryOwner: 'watcher-1', recoveryLeaseExpiresAt: 1_700_000_060_000 };
const due = [{ taskId: 'tsk_sibling', attempt: 1, slice: 1 }];
const failure: StructuredFailure = {
  reason: 'policy_exhausted',
  detail: 'all 4 retries of the policy failed',
  completedUnits: 3,
  totalUnits: 5,
  verified: { checks: [], unavailable: [] },
  externalChanges: { counts: {}, keys: [] },
  unresolvedWrites: [],
  duplicatesCreated: 0,
  retryHistory: [],
  nextSteps: [],
};

describe('TaskLifecycle: the Watcher’s moves', () => {
  it('recover: the attempt ends with its named reason, due now, and its Worker told to stop', async () => {
    const { lifecycle, store, signals } = inMemoryLifecycle();
    await lifecycle.recover(task, { reason: 'frozen', detail: 'no heartbeat for 31 s', lease, now: 5 });
    expect(store.only()).toMatchObject({
      operation: 'recover',
      to: 'retrying',
      attempt: 2,
      from: ['running', 'waiting_on_tool'],
      failedAttempt: { model: 'gemini', reason: 'frozen', detail: 'no heartbeat for 31 s' },
      fields: owner,
      deadlineMs: 5,
      eventData: { turnFailed: 'frozen', detail: 'no heartbeat for 31 s' },
    });
    expect(signals.sent).toEqual([{ taskId: 'tsk_1', action: 'stop', attempt: 2 }]);
  });

  it('complete: the verification and result recorded, and the slices its end made due published', async () => {
    const { lifecycle, store, slices } = inMemoryLifecycle();
    store.replyNext({ due });
    const checks = [{ check: 'adsets', expected: 5, actual: 5, passed: true }];
    const verification: Verification = { passed: true, checks, at: 9 };
    await lifecycle.complete(task, { verification, findings: [{ title: 'f' }], lease });
    expect(store.only()).toMatchObject({
      operation: 'complete',
      to: 'completed',
      attempt: 2,
      from: ['verifying'],
      fields: {
        verification,
        result: { summary: 'built 5 ad sets', checks, findings: [{ title: 'f' }] },
        ...owner,
      },
      eventData: { checks: [{ check: 'adsets', expected: 5, actual: 5 }] },
    });
    expect(slices.republished).toEqual([{ ...due[0], reason: 'created' }]);
  });

  it('failVerification: a failed attempt saying exactly which checks were missing', async () => {
    const { lifecycle, store, signals } = inMemoryLifecycle();
    const checks = [
      { check: 'adsets', expected: 5, actual: 3, passed: false, detail: 'found 3' },
      { check: 'budget', expected: 10, actual: 10, passed: true },
      { check: 'name', expected: 'x', actual: null, passed: false },
    ];
    await lifecycle.failVerification(task, { verification: { passed: false, checks, at: 9 }, lease, now: 7 });
    expect(store.only()).toMatchObject({
      operation: 'fail_verification',
      to: 'retrying',
      from: ['verifying'],
      failedAttempt: {
        model: 'gemini',
        reason: 'failed_verification',
        detail: 'adsets: found 3; name: expected "x"',
      },
      fields: { verification: { passed: false, checks, at: 9 }, ...owner },
      deadlineMs: 7,
      eventData: { turnFailed: 'failed_verification', failedChecks: ['adsets', 'name'] },
    });
    expect(signals.sent).toEqual([]);
  });

  it('requeueForRetry: queued on the next model with its retry context, and the slice published', async () => {
    const { lifecycle, store, slices } = inMemoryLifecycle();
    const retryContext = { retryNumber: 2, reason: 'crashed' as const, lastVerifiedStep: 4 };
    await lifecycle.requeueForRetry(task, { model: 'opus', retryContext, lease });
    expect(store.only()).toMatchObject({
      operation: 'requeue_for_retry',
      to: 'queued',
      attempt: 2,
      from: ['retrying'],
      increments: { retryCount: 1 },
      fields: {
        model: 'opus',
        retryContext,
        attemptSpentFrom: 0.25,
        consecutiveErrors: 0,
        lastVerifiedStep: 4,
        ...owner,
      },
      eventData: { retryNumber: 2, reason: 'crashed', completedUnits: 4 },
    });
    expect(slices.published).toEqual([{ taskId: 'tsk_1', attempt: 2, slice: 8, reason: 'recovery' }]);
  });

  it('continueAfterStoreFull: queued again as a next slice, attempt bumped as a fence only, no retry and no failed attempt', async () => {
    const { lifecycle, store, signals, slices } = inMemoryLifecycle();
    store.replyNext({ attempt: 3 });
    const detail = 'no heartbeat for 40 s while Redis was full';
    await lifecycle.continueAfterStoreFull(task, { detail, lease });
    const command = store.only();
    expect(command).toMatchObject({
      operation: 'continue_after_store_full',
      to: 'queued',
      attempt: 2,
      from: ['running', 'waiting_on_tool'],
      increments: { attempt: 1 },
      fields: owner,
      eventData: { handedOn: 'store_full', detail },
    });
    expect(command).not.toHaveProperty('failedAttempt');
    expect(command.increments).not.toHaveProperty('retryCount');
    expect(signals.sent).toEqual([{ taskId: 'tsk_1', action: 'stop', attempt: 2 }]);
    expect(slices.published).toEqual([{ taskId: 'tsk_1', attempt: 3, slice: 8, reason: 'store_full' }]);
  });

  it('failForLimit: the active-time limit fails the task whatever it is doing', async () => {
    const { lifecycle, store, signals, slices } = inMemoryLifecycle();
    store.replyNext({ due });
    const limit = { ...failure, reason: 'limit' as const, detail: 'TASK_MAX_DURATION_MS reached' };
    await lifecycle.failForLimit(task, { failure: limit, lease, clock: 'active_time' });
    const command = store.only();
    expect(command).toMatchObject({
      operation: 'fail',
      to: 'failed',
      attempt: 2,
      fields: { failure: limit, ...owner },
      eventData: {
        reason: 'limit',
        detail: 'TASK_MAX_DURATION_MS reached',
        completedUnits: 3,
        totalUnits: 5,
      },
    });
    expect(command).not.toHaveProperty('from');
    expect(signals.sent).toEqual([{ taskId: 'tsk_1', action: 'stop' }]);
    expect(slices.republished).toEqual([{ ...due[0], reason: 'created' }]);
  });

  it('failForLimit: an unanswered question fails only a task still waiting for its answer', async () => {
    const { lifecycle, store } = inMemoryLifecycle();
    await lifecycle.failForLimit(task, { failure, lease, clock: 'human_wait' });
    expect(store.only().from).toEqual(['waiting_on_human']);
  });

  it('giveUp: no retry left, unless a pause or stop landed meanwhile (the status it read)', async () => {
    const { lifecycle, store, signals } = inMemoryLifecycle();
    await lifecycle.giveUp(task, { failure, lease });
    expect(store.only()).toMatchObject({
      operation: 'fail',
      from: ['retrying'],
      eventData: { reason: 'policy_exhausted', detail: 'all 4 retries of the policy failed' },
    });
    expect(signals.sent).toEqual([{ taskId: 'tsk_1', action: 'stop' }]);
  });

  it('cancelChild: a child refused a place is cancelled by its parent, only while queued if asked', async () => {
    const { lifecycle, store, signals } = inMemoryLifecycle();
    await lifecycle.cancelChild(task, { onlyQueued: true });
    await lifecycle.cancelChild(task, { onlyQueued: false });
    const [queued, any] = store.applied.map(({ command }) => command);
    expect(queued).toMatchObject({
      operation: 'cancel_child',
      to: 'cancelled',
      from: ['queued'],
      eventData: { by: 'parent' },
    });
    expect(any).not.toHaveProperty('from');
    expect(any.attempt).toBeUndefined();
    expect(signals.sent).toEqual([]);
  });
});
