import type { ActionRecord, JournalEntry, TaskRecord } from '@vigil/tasks';

/** A complete task record as decodeTask returns it: a noop task running its first attempt. */
export function taskRecord(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: 'tsk_fixture',
    tenantId: 'acme',
    conversationId: null,
    parentId: null,
    kind: 'noop',
    kindVersion: 1,
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

/** A complete record for the report's tests: a mission that completed, verified, on its second attempt. */
export function missionRecord(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return taskRecord({
    id: 'tsk_report',
    kind: 'mission',
    title: 'Survey the docs and file a ticket',
    input: { goal: 'Read the three guides, note what is missing, file one ticket.', tools: ['files'] },
    status: 'completed',
    attempt: 2,
    model: 'gemini',
    currentStep: null,
    completedUnits: 4,
    totalUnits: null,
    lastVerifiedStep: 4,
    sliceCount: 3,
    contextVersion: 6,
    retryCount: 1,
    retryHistory: [
      {
        attempt: 1,
        model: 'opus',
        provider: 'scripted',
        result: 'failed',
        reason: 'crashed',
        detail: 'worker vm-1 is gone',
        costUsd: 0.12,
        at: 1_700_000_000_500,
      },
    ],
    exitCriteria: [{ check: 'http_json', expected: 1, args: { url: 'http://t/tickets', pointer: '/total' } }],
    verification: {
      passed: true,
      checks: [{ check: 'http_json', expected: 1, actual: 1, passed: true }],
      at: 1_700_000_002_000,
    },
    result: { summary: 'All done, everything is perfect.' },
    spentUsd: 0.25,
    updatedAt: 1_700_000_002_000,
    finishedAt: 1_700_000_002_000,
    activeMs: 2_000,
    activeSince: null,
    agent: {},
    claim: { summary: 'All done, everything is perfect.', attempt: 2, at: 1_700_000_001_900 },
    ...overrides,
  });
}

/** Step `step` of a task's action log (attempt 1, slice 1, a file write unless `overrides` say else). */
export function action(step: number, overrides: Partial<ActionRecord>): ActionRecord {
  return {
    step,
    attempt: 1,
    slice: 1,
    tool: 'files__write_file',
    key: null,
    args: {},
    startedAt: 1_700_000_000_000 + step,
    durationMs: 3,
    ...overrides,
  };
}

/**
 * What StepRecorder.record takes as `action`: a call of `tool` in attempt 1, slice 1, that answered
 * `result` (3 ms, started at `startedAt`).
 */
export function stepAction(
  tool: string,
  key: string | null,
  args: Record<string, unknown>,
  result: unknown,
  startedAt = 1_700_000_000_000,
): Omit<ActionRecord, 'step'> {
  return { attempt: 1, slice: 1, tool, key, args, result, startedAt, durationMs: 3 };
}

/** A done write-journal entry of attempt 1 with `result`. */
export const done = (result: unknown, extra: Partial<JournalEntry> = {}): JournalEntry => ({
  state: 'done',
  attempt: 1,
  at: 1_700_000_000_000,
  result,
  ...extra,
});
