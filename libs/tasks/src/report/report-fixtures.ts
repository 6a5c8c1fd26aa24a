import type { ActionRecord, JournalEntry } from '../history/history.types';
import type { TaskRecord } from '../task.types';

/** A complete record for the report's unit tests: a mission that completed, verified. */
export function missionRecord(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: 'tsk_report',
    tenantId: 'acme',
    conversationId: null,
    parentId: null,
    kind: 'mission',
    title: 'Survey the docs and file a ticket',
    input: { goal: 'Read the three guides, note what is missing, file one ticket.', tools: ['files'] },
    status: 'completed',
    statusReason: null,
    attempt: 2,
    model: 'gemini',
    provider: 'scripted',
    currentStep: null,
    completedUnits: 4,
    totalUnits: null,
    lastHeartbeatAt: 1_700_000_000_000,
    inFlight: null,
    loopLagMs: null,
    lastVerifiedStep: 4,
    sliceCount: 3,
    consecutiveErrors: 0,
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
    failure: null,
    budgetUsd: 3,
    spentUsd: 0.25,
    createdAt: 1_700_000_000_000,
    startedAt: 1_700_000_000_100,
    updatedAt: 1_700_000_002_000,
    finishedAt: 1_700_000_002_000,
    activeMs: 2_000,
    activeSince: null,
    lastUserUpdateAt: null,
    recoveryOwner: null,
    recoveryLeaseExpiresAt: null,
    codeVersion: 'test',
    sandbox: false,
    notify: {},
    agent: {},
    workerId: null,
    retryContext: null,
    claim: { summary: 'All done, everything is perfect.', attempt: 2, at: 1_700_000_001_900 },
    humanQuestion: null,
    humanInput: null,
    humanDeadlineAt: null,
    archived: false,
    children: null,
    ...overrides,
  };
}

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

export const done = (result: unknown, extra: Partial<JournalEntry> = {}): JournalEntry => ({
  state: 'done',
  attempt: 1,
  at: 1_700_000_000_000,
  result,
  ...extra,
});
