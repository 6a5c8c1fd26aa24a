import type { TaskEvent, TaskEventType } from '@vigil/events';
import type { TaskEventDataMap, TaskRecord } from '@vigil/tasks';

/** A complete task record as decodeTask returns it, for the pure wording tests. */
export function taskRecord(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: 'tsk_fixture',
    tenantId: 'acme',
    conversationId: null,
    parentId: null,
    kind: 'noop',
    title: 'Build the spring campaign',
    input: { steps: 40 },
    status: 'running',
    statusReason: null,
    attempt: 1,
    model: 'opus',
    provider: 'scripted',
    currentStep: 'noop_step step:3',
    completedUnits: 3,
    totalUnits: 40,
    lastHeartbeatAt: 1_700_000_000_000,
    inFlight: null,
    loopLagMs: null,
    lastVerifiedStep: 3,
    sliceCount: 1,
    consecutiveErrors: 0,
    contextVersion: 3,
    retryCount: 0,
    retryHistory: [],
    exitCriteria: [{ check: 'all_steps_recorded', expected: 40 }],
    verification: null,
    result: null,
    failure: null,
    budgetUsd: 3,
    spentUsd: 0,
    createdAt: 1_700_000_000_000,
    startedAt: 1_700_000_000_100,
    updatedAt: 1_700_000_000_200,
    finishedAt: null,
    activeMs: 100,
    activeSince: 1_700_000_000_100,
    lastUserUpdateAt: null,
    recoveryOwner: null,
    recoveryLeaseExpiresAt: null,
    codeVersion: 'test',
    sandbox: false,
    notify: {},
    agent: { policy: ['opus', 'gemini', 'opus', 'gemini'] },
    workerId: null,
    retryContext: null,
    claim: null,
    humanQuestion: null,
    humanInput: null,
    humanDeadlineAt: null,
    archived: false,
    children: null,
    ...overrides,
  };
}

/** An event of `type`; its data may leave out what the wording under test does not read. */
export function taskEvent<T extends TaskEventType>(
  type: T,
  data: Partial<TaskEventDataMap[T]> = {},
  id = '1700000000500-0',
): TaskEvent {
  const envelope = {
    id,
    shard: 0,
    taskId: 'tsk_fixture',
    tenantId: 'acme',
    attempt: 1,
    at: 1_700_000_000_500,
    status: 'running',
    from: 'running',
  };
  return { ...envelope, type, data } as TaskEvent;
}

/** Whatever a message says, it never shows a percentage. */
export const PERCENTAGE = /\d\s*%|percent/i;
