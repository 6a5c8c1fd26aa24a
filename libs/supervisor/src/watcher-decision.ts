import type { InFlightCall, TaskRecord } from '@vigil/tasks';
import { TERMINAL_STATUSES } from '@vigil/tasks';

/** Why the Watcher looks at a task: which index or signal named it. */
export type Suspicion = 'deadline' | 'verifying' | 'expired' | 'worker_gone' | 'hung_call';

/** What the Watcher saw before it took the lease. */
export interface Evidence {
  /** When the task's Worker was first seen without its liveness connection (worker_gone). */
  workerGoneSince?: number;
}

/** The clocks and limits a decision reads: the Watcher's slice of the config. */
export interface DecisionLimits {
  staleAfterMs: number;
  heartbeatIntervalMs: number;
  taskMaxDurationMs: number;
  humanWaitTimeoutMs: number;
}

/** The fields of the record a decision reads. */
export type DecisionInput = Pick<
  TaskRecord,
  | 'status'
  | 'statusReason'
  | 'workerId'
  | 'lastHeartbeatAt'
  | 'updatedAt'
  | 'inFlight'
  | 'activeMs'
  | 'activeSince'
  | 'humanDeadlineAt'
  | 'humanQuestion'
>;

/**
 * What the Watcher does about one task (docs/ARCHITECTURE.md, "The Watcher's decision"):
 * - `nothing`        the task ended or is not the Watcher's to act on (a parent parked on its children);
 * - `hands_off`      its Worker proves itself alive and no call is past its deadline (invariant 6);
 * - `recover`        end the attempt, named `crashed` or `frozen`, and retry per policy;
 * - `request_abort`  a call overran its deadline in a live Worker: ask it to abort, look again at `lookAgainAt`;
 * - `republish`      a queued task past its pick-up deadline: make sure its slice job exists;
 * - `publish_retry`  a task between attempts: publish the next attempt, or fail when the policy is spent;
 * - `verify`         run the exit criteria of a completion claim;
 * - `fail`           the task's clock ran out: its active time (which overrides whatever it is doing) or a person's answer time;
 * - `reschedule`     an expiry entry that came due early: put it back at `at`, then do `then`.
 */
export type WatcherDecision =
  | { kind: 'nothing' }
  | { kind: 'hands_off' }
  | { kind: 'recover'; reason: 'crashed' | 'frozen'; detail: string }
  | { kind: 'request_abort'; call: InFlightCall; lookAgainAt: number }
  | { kind: 'republish' }
  | { kind: 'publish_retry' }
  | { kind: 'verify' }
  | { kind: 'fail'; reason: 'limit'; detail: string; clock: 'active_time' | 'human_wait' }
  | { kind: 'reschedule'; at: number; then: WatcherDecision };

const NOTHING: WatcherDecision = { kind: 'nothing' };
const HANDS_OFF: WatcherDecision = { kind: 'hands_off' };

/**
 * The Watcher's functional core: a pure function of the record, the evidence and the clock. The
 * shell (TaskSupervisor) re-reads the task under its lease, calls this, and carries the decision
 * out through fenced lifecycle moves, so a decision made on a stale read cannot corrupt a task.
 */
export function decide(
  task: DecisionInput | null,
  suspicion: Suspicion,
  evidence: Evidence,
  now: number,
  limits: DecisionLimits,
): WatcherDecision {
  if (!task || TERMINAL_STATUSES.includes(task.status)) return NOTHING;
  const look: Look = { suspicion, evidence, now, limits };
  if (suspicion !== 'expired') return byStatus(task, look);
  const clock = clockRanOut(task, now, limits);
  if (clock) return { kind: 'fail', reason: 'limit', ...clock };
  const next = byStatus(task, look);
  const at = clockRunsOutAt(task, now, limits);
  return at === null ? next : { kind: 'reschedule', at: Math.max(at, now + 1000), then: next };
}

/** Why and when the task is looked at, and the limits it is judged by. */
interface Look {
  suspicion: Suspicion;
  evidence: Evidence;
  now: number;
  limits: DecisionLimits;
}

function byStatus(task: DecisionInput, look: Look): WatcherDecision {
  switch (task.status) {
    case 'waiting_on_tool':
      // A parent waiting on its children holds no Worker: nothing to be stale (docs/missions.md, "Child missions").
      if (task.statusReason === 'children') return NOTHING;
      return liveness(task, look);
    case 'running':
      return liveness(task, look);
    case 'queued':
      return { kind: 'republish' };
    case 'retrying':
      return { kind: 'publish_retry' };
    case 'verifying':
      return { kind: 'verify' };
    default:
      return NOTHING;
  }
}

/**
 * Hands off while the Worker proves itself alive and no call is past its deadline
 * (docs/ARCHITECTURE.md, invariant 6). Otherwise names what happened: `crashed` (its process is
 * gone), `frozen` (connected but silent, or deaf to the abort of a call past its deadline), or,
 * for a call past its deadline in a Worker that still beats, asks that Worker to abort the call
 * (its slice then ends the attempt as `hung_call`). The Worker gets two heartbeats to abort.
 */
function liveness(task: DecisionInput, { suspicion, evidence, now, limits }: Look): WatcherDecision {
  const lastProof = task.lastHeartbeatAt ?? task.updatedAt;
  // A dead process writes nothing: a proof of life after its connection vanished was a blip.
  if (
    suspicion === 'worker_gone' &&
    evidence.workerGoneSince !== undefined &&
    lastProof < evidence.workerGoneSince
  )
    return {
      kind: 'recover',
      reason: 'crashed',
      detail: `worker ${task.workerId ?? '?'} is gone (its connection closed)`,
    };
  const heartbeatAge = now - lastProof;
  if (heartbeatAge >= limits.staleAfterMs)
    return {
      kind: 'recover',
      reason: 'frozen',
      detail: `no heartbeat for ${Math.round(heartbeatAge / 1000)} s`,
    };
  const call = task.inFlight;
  if (!call || call.deadlineAt > now) return HANDS_OFF;
  const abortBy = call.deadlineAt + 2 * limits.heartbeatIntervalMs;
  if (now < abortBy) return { kind: 'request_abort', call, lookAgainAt: abortBy };
  const late = Math.round((now - call.deadlineAt) / 1000);
  return {
    kind: 'recover',
    reason: 'frozen',
    detail: `${call.kind} call ${call.name} overran its deadline by ${late} s and the worker did not abort it`,
  };
}

/**
 * The task's clock ran out: active time used up (paused and waiting time do not count), or a
 * question to a person unanswered for HUMAN_WAIT_TIMEOUT_MS. A paused task has no clock.
 */
function clockRanOut(
  task: DecisionInput,
  now: number,
  limits: DecisionLimits,
): { detail: string; clock: 'active_time' | 'human_wait' } | undefined {
  if (task.status === 'waiting_on_human') {
    if (task.humanDeadlineAt === null || task.humanDeadlineAt > now) return undefined;
    const waited = Math.round(limits.humanWaitTimeoutMs / 60_000);
    return {
      detail: `the question "${task.humanQuestion ?? ''}" went unanswered for ${waited} min (HUMAN_WAIT_TIMEOUT_MS)`,
      clock: 'human_wait',
    };
  }
  if (task.activeSince === null) return undefined;
  const active = task.activeMs + Math.max(0, now - task.activeSince);
  if (active < limits.taskMaxDurationMs) return undefined;
  return {
    detail: `TASK_MAX_DURATION_MS (${limits.taskMaxDurationMs} ms of active time) reached`,
    clock: 'active_time',
  };
}

/** When a clock that has not run out will: the answer deadline, or when active time reaches the limit. */
function clockRunsOutAt(task: DecisionInput, now: number, limits: DecisionLimits): number | null {
  if (task.status === 'waiting_on_human') return task.humanDeadlineAt;
  if (task.activeSince === null) return null;
  return now + limits.taskMaxDurationMs - task.activeMs - Math.max(0, now - task.activeSince);
}
