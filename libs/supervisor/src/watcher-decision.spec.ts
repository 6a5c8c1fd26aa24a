import {
  decide,
  DecisionInput,
  DecisionLimits,
  Evidence,
  Suspicion,
  WatcherDecision,
} from './watcher-decision';

const NOW = 10_000_000;
const LIMITS: DecisionLimits = {
  staleAfterMs: 120_000,
  heartbeatIntervalMs: 30_000,
  taskMaxDurationMs: 3_600_000,
  humanWaitTimeoutMs: 86_400_000,
};

const running: DecisionInput = {
  status: 'running',
  statusReason: null,
  workerId: 'w-1',
  lastHeartbeatAt: NOW - 1_000,
  updatedAt: NOW - 1_000,
  inFlight: null,
  activeMs: 0,
  activeSince: NOW - 60_000,
  humanDeadlineAt: null,
  humanQuestion: null,
};
const call = { kind: 'tool' as const, name: 'create_ad', since: NOW - 200_000, deadlineAt: NOW - 10_000 };

interface Row {
  name: string;
  task: Partial<DecisionInput> | null;
  suspicion: Suspicion;
  evidence?: Evidence;
  expected: WatcherDecision;
}

// Each row: the record as read under the lease, why it was looked at, and what must be done.
const rows: Row[] = [
  { name: 'a task that no longer exists', task: null, suspicion: 'deadline', expected: { kind: 'nothing' } },
  ...(['completed', 'failed', 'cancelled'] as const).map<Row>((status) => ({
    name: `a ${status} task`,
    task: { status },
    suspicion: 'deadline',
    expected: { kind: 'nothing' },
  })),
  {
    name: 'a fresh heartbeat and no call in flight',
    task: {},
    suspicion: 'deadline',
    expected: { kind: 'hands_off' },
  },
  {
    name: 'a heartbeat one millisecond short of stale',
    task: { lastHeartbeatAt: NOW - LIMITS.staleAfterMs + 1 },
    suspicion: 'deadline',
    expected: { kind: 'hands_off' },
  },
  {
    name: 'a heartbeat exactly stale',
    task: { lastHeartbeatAt: NOW - LIMITS.staleAfterMs },
    suspicion: 'deadline',
    expected: { kind: 'recover', reason: 'frozen', detail: 'no heartbeat for 120 s' },
  },
  {
    name: 'no heartbeat yet: the last update is the proof',
    task: { lastHeartbeatAt: null, updatedAt: NOW - 130_000 },
    suspicion: 'deadline',
    expected: { kind: 'recover', reason: 'frozen', detail: 'no heartbeat for 130 s' },
  },
  {
    name: 'the Worker connection vanished after its last proof of life',
    task: { lastHeartbeatAt: NOW - 3_000 },
    suspicion: 'worker_gone',
    evidence: { workerGoneSince: NOW - 2_000 },
    expected: { kind: 'recover', reason: 'crashed', detail: 'worker w-1 is gone (its connection closed)' },
  },
  {
    name: 'a heartbeat after the connection vanished (a blip)',
    task: { lastHeartbeatAt: NOW - 1_000 },
    suspicion: 'worker_gone',
    evidence: { workerGoneSince: NOW - 2_000 },
    expected: { kind: 'hands_off' },
  },
  {
    name: 'worker_gone without evidence is judged by the heartbeat',
    task: {},
    suspicion: 'worker_gone',
    expected: { kind: 'hands_off' },
  },
  {
    name: 'a call in flight within its deadline',
    task: { inFlight: { ...call, deadlineAt: NOW + 1 } },
    suspicion: 'hung_call',
    expected: { kind: 'hands_off' },
  },
  {
    name: 'a call past its deadline in a live Worker',
    task: { inFlight: call },
    suspicion: 'hung_call',
    expected: { kind: 'request_abort', call, lookAgainAt: call.deadlineAt + 60_000 },
  },
  {
    name: 'a call past its deadline and the two heartbeats of grace',
    task: { inFlight: { ...call, deadlineAt: NOW - 60_000 } },
    suspicion: 'hung_call',
    expected: {
      kind: 'recover',
      reason: 'frozen',
      detail: 'tool call create_ad overran its deadline by 60 s and the worker did not abort it',
    },
  },
  {
    name: 'waiting on a tool is judged like running',
    task: { status: 'waiting_on_tool', lastHeartbeatAt: NOW - 200_000 },
    suspicion: 'deadline',
    expected: { kind: 'recover', reason: 'frozen', detail: 'no heartbeat for 200 s' },
  },
  {
    name: 'a parent waiting on its children is never stale',
    task: { status: 'waiting_on_tool', statusReason: 'children', lastHeartbeatAt: NOW - 900_000 },
    suspicion: 'deadline',
    expected: { kind: 'nothing' },
  },
  {
    name: 'a queued task past pick-up',
    task: { status: 'queued' },
    suspicion: 'deadline',
    expected: { kind: 'republish' },
  },
  {
    name: 'a task between attempts',
    task: { status: 'retrying' },
    suspicion: 'deadline',
    expected: { kind: 'publish_retry' },
  },
  {
    name: 'a completion claim',
    task: { status: 'verifying' },
    suspicion: 'verifying',
    expected: { kind: 'verify' },
  },
  {
    name: 'a paused task',
    task: { status: 'paused', lastHeartbeatAt: NOW - 900_000 },
    suspicion: 'deadline',
    expected: { kind: 'nothing' },
  },
  {
    name: 'a waiting-on-human task seen through the deadline index',
    task: { status: 'waiting_on_human', humanDeadlineAt: NOW + 1 },
    suspicion: 'deadline',
    expected: { kind: 'nothing' },
  },
  {
    name: 'active time used up, whatever the task is doing',
    task: { activeMs: LIMITS.taskMaxDurationMs - 60_000, activeSince: NOW - 60_000 },
    suspicion: 'expired',
    expected: {
      kind: 'fail',
      reason: 'limit',
      detail: 'TASK_MAX_DURATION_MS (3600000 ms of active time) reached',
      clock: 'active_time',
    },
  },
  {
    name: 'an expiry entry due early is put back at the real time, then the task is judged',
    task: { activeMs: 1_000_000, activeSince: NOW - 600_000 },
    suspicion: 'expired',
    expected: { kind: 'reschedule', at: NOW + 2_000_000, then: { kind: 'hands_off' } },
  },
  {
    name: 'an early expiry never reschedules sooner than a second from now',
    task: { activeMs: LIMITS.taskMaxDurationMs - 60_500, activeSince: NOW - 60_000 },
    suspicion: 'expired',
    expected: { kind: 'reschedule', at: NOW + 1_000, then: { kind: 'hands_off' } },
  },
  {
    name: 'a paused task has no clock',
    task: { status: 'paused', activeSince: null, activeMs: LIMITS.taskMaxDurationMs * 2 },
    suspicion: 'expired',
    expected: { kind: 'nothing' },
  },
  {
    name: 'a question unanswered past its deadline',
    task: {
      status: 'waiting_on_human',
      activeSince: null,
      humanDeadlineAt: NOW,
      humanQuestion: 'Which page?',
    },
    suspicion: 'expired',
    expected: {
      kind: 'fail',
      reason: 'limit',
      detail: 'the question "Which page?" went unanswered for 1440 min (HUMAN_WAIT_TIMEOUT_MS)',
      clock: 'human_wait',
    },
  },
  {
    name: 'a question whose deadline moved later (answered, asked again)',
    task: { status: 'waiting_on_human', activeSince: null, humanDeadlineAt: NOW + 5_000 },
    suspicion: 'expired',
    expected: { kind: 'reschedule', at: NOW + 5_000, then: { kind: 'nothing' } },
  },
  {
    name: 'a stale running task whose clock has time left: rescheduled, then recovered',
    task: { lastHeartbeatAt: NOW - 500_000 },
    suspicion: 'expired',
    expected: {
      kind: 'reschedule',
      at: NOW + LIMITS.taskMaxDurationMs - 60_000,
      then: { kind: 'recover', reason: 'frozen', detail: 'no heartbeat for 500 s' },
    },
  },
  ...storeFullRows(),
];

/**
 * A full Redis (docs/operations.md, "A full Redis"): while it refuses writes nothing is recovered,
 * failed or published; afterwards a silence it explains continues without a retry, and anything
 * else is judged as ever.
 */
function storeFullRows(): Row[] {
  const FULL: Evidence = { store: { full: true } };
  // Full from 100 s ago (the last look that found it writable) until 10 s ago.
  const window = { since: NOW - 100_000, until: NOW - 10_000 };
  const AFTER: Evidence = { store: { full: false, lastFullWindow: window } };
  const detail = (silence: string) =>
    `${silence} while Redis was full (about 90 s, until ${new Date(window.until).toISOString()})`;
  const whileFull: [string, Partial<DecisionInput>, Suspicion][] = [
    ['a stale running task', { lastHeartbeatAt: NOW - 500_000 }, 'deadline'],
    [
      'a call past its deadline and its grace',
      { inFlight: { ...call, deadlineAt: NOW - 60_000 } },
      'hung_call',
    ],
    ['a call past its deadline', { inFlight: call }, 'hung_call'],
    ['a queued task past pick-up', { status: 'queued' }, 'deadline'],
    ['a task between attempts', { status: 'retrying' }, 'deadline'],
    ['a completion claim', { status: 'verifying' }, 'verifying'],
    ['active time used up', { activeMs: LIMITS.taskMaxDurationMs }, 'expired'],
    ['a fresh heartbeat', {}, 'deadline'],
  ];
  return [
    ...whileFull.map<Row>(([name, task, suspicion]) => ({
      name: `store full: ${name} waits (store_full)`,
      task,
      suspicion,
      evidence: FULL,
      expected: { kind: 'store_full' },
    })),
    {
      name: 'store full: a crashed Worker waits too',
      task: { lastHeartbeatAt: NOW - 3_000 },
      suspicion: 'worker_gone',
      evidence: { ...FULL, workerGoneSince: NOW - 2_000 },
      expected: { kind: 'store_full' },
    },
    {
      name: 'store full: an ended task is still nothing',
      task: { status: 'completed' },
      suspicion: 'deadline',
      evidence: FULL,
      expected: { kind: 'nothing' },
    },
    {
      name: 'after: stale since a beat during the spell: continues, no retry',
      task: { lastHeartbeatAt: NOW - 150_000 },
      suspicion: 'deadline',
      evidence: AFTER,
      expected: { kind: 'continue_after_store_full', detail: detail('no heartbeat for 150 s') },
    },
    {
      name: 'after: the last beat just fresh when the store was last seen writable: continues',
      task: { lastHeartbeatAt: window.since - LIMITS.staleAfterMs + 1 },
      suspicion: 'deadline',
      evidence: AFTER,
      expected: { kind: 'continue_after_store_full', detail: detail('no heartbeat for 220 s') },
    },
    {
      name: 'after: already stale before the store filled: frozen',
      task: { lastHeartbeatAt: window.since - LIMITS.staleAfterMs },
      suspicion: 'deadline',
      evidence: AFTER,
      expected: { kind: 'recover', reason: 'frozen', detail: 'no heartbeat for 220 s' },
    },
    {
      name: 'after: a beat after the spell, then silence: frozen',
      task: { lastHeartbeatAt: NOW - 129_000 },
      suspicion: 'deadline',
      evidence: { store: { full: false, lastFullWindow: { since: NOW - 200_000, until: NOW - 130_000 } } },
      expected: { kind: 'recover', reason: 'frozen', detail: 'no heartbeat for 129 s' },
    },
    {
      name: 'after: a beat during the spell, not yet stale: hands off',
      task: { lastHeartbeatAt: NOW - 20_000 },
      suspicion: 'deadline',
      evidence: AFTER,
      expected: { kind: 'hands_off' },
    },
    {
      name: 'after: a call past its deadline and grace, its Worker silenced by the spell: continues',
      task: { lastHeartbeatAt: NOW - 20_000, inFlight: { ...call, deadlineAt: NOW - 60_000 } },
      suspicion: 'hung_call',
      evidence: AFTER,
      expected: {
        kind: 'continue_after_store_full',
        detail: detail('tool call create_ad overran its deadline by 60 s and the worker did not abort it'),
      },
    },
    {
      name: 'after: a Worker process gone is a crash whatever the store did',
      task: { lastHeartbeatAt: NOW - 150_000 },
      suspicion: 'worker_gone',
      evidence: { ...AFTER, workerGoneSince: NOW - 5_000 },
      expected: { kind: 'recover', reason: 'crashed', detail: 'worker w-1 is gone (its connection closed)' },
    },
    {
      name: 'after: a clock that ran out fails the task as ever',
      task: { lastHeartbeatAt: NOW - 150_000, activeMs: LIMITS.taskMaxDurationMs },
      suspicion: 'expired',
      evidence: AFTER,
      expected: {
        kind: 'fail',
        reason: 'limit',
        detail: 'TASK_MAX_DURATION_MS (3600000 ms of active time) reached',
        clock: 'active_time',
      },
    },
  ];
}

describe('the Watcher decision', () => {
  it.each(rows)('$name', ({ task, suspicion, evidence, expected }) => {
    const record = task === null ? null : { ...running, ...task };
    expect(decide(record, suspicion, evidence ?? {}, NOW, LIMITS)).toEqual(expected);
  });

  it('reads nothing but its arguments: the same input gives the same decision', () => {
    const record = { ...running, inFlight: call };
    const first = decide(record, 'hung_call', {}, NOW, LIMITS);
    expect(decide(record, 'hung_call', {}, NOW, LIMITS)).toEqual(first);
    expect(record.inFlight).toBe(call);
  });
});
