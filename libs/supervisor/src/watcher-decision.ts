import type { InFlightCall, TaskRecord } from '@vigil/tasks';
import { TERMINAL_STATUSES } from '@vigil/tasks';

/** Why the Watcher looks at a task: which index or signal named it. */
export type Suspicion = 'deadline' | 'verifying' | 'expired' | 'worker_gone' | 'hung_call';

/** When Redis was last full: from the last look that found it writable to the first that found it writable again. */
export interface StoreFullWindow {
  since: number;
  until: number;
}

/** What the Watcher knows of the store (docs/operations.md, "A full Redis"). */
export interface StoreEvidence {
  /** Redis refuses writes now (`maxmemory` reached under `noeviction`). */
  full: boolean;
  /** The last time it did, once it has stopped. */
  lastFullWindow?: StoreFullWindow;
}

/** What the Watcher saw before it took the lease. */
export interface Evidence {
  /** When the task's Worker was first seen without its liveness connection (worker_gone). */
  workerGoneSince?: number;
  store?: StoreEvidence;
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
 * - `reschedule`     an expiry entry that came due early: put it back at `at`, then do `then`;
 * - `store_full`     Redis refuses writes: every move would be refused too, so nothing is recovered, failed or published;
 * - `continue_after_store_full`  the heartbeat went stale while Redis was full (its Worker ended the slice
 *                    when a write was refused): the task goes on from its last recorded step, no retry counted.
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
  | { kind: 'reschedule'; at: number; then: WatcherDecision }
  | { kind: 'store_full' }
  | { kind: 'continue_after_store_full'; detail: string };

const NOTHING: WatcherDecision = { kind: 'nothing' };
const HANDS_OFF: WatcherDecision = { kind: 'hands_off' };
const STORE_FULL: WatcherDecision = { kind: 'store_full' };

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
  // Every move is a write a full Redis refuses: a clock, a recovery, a retry all wait for it.
  if (evidence.store?.full) return STORE_FULL;
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
 * Whether the last time Redis was full explains a task's silence (docs/operations.md, "A full
 * Redis"): its last proof of life was still fresh when Redis was last seen writable before it
 * filled, and came before Redis was seen writable again. Such a Worker could write nothing more
 * and ended its slice; one that proved itself alive after the window, or was already silent
 * before it, is judged as ever.
 */
function silencedByFullStore(
  lastProof: number,
  evidence: Evidence,
  limits: DecisionLimits,
): StoreFullWindow | undefined {
  const window = evidence.store?.lastFullWindow;
  if (!window) return undefined;
  return lastProof > window.since - limits.staleAfterMs && lastProof <= window.until ? window : undefined;
}

function continueAfterStoreFull(silence: string, window: StoreFullWindow): WatcherDecision {
  const seconds = Math.max(1, Math.round((window.until - window.since) / 1000));
  return {
    kind: 'continue_after_store_full',
    detail: `${silence} while Redis was full (about ${seconds} s, until ${new Date(window.until).toISOString()})`,
  };
}

/**
 * Hands off while the Worker proves itself alive and no call is past its deadline
 * (docs/ARCHITECTURE.md, invariant 6). Otherwise names what happened: `crashed` (its process is
 * gone), `frozen` (connected but silent, or deaf to the abort of a call past its deadline), or,
 * for a call past its deadline in a Worker that still beats, asks that Worker to abort the call
 * (its slice then ends the attempt as `hung_call`). The Worker gets two heartbeats to abort.
 * A silence that a full Redis explains is no failure: the task continues (`continue_after_store_full`);
 * a process that is gone is a crash whatever the store did.
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
  const fullStore = silencedByFullStore(lastProof, evidence, limits);
  if (heartbeatAge >= limits.staleAfterMs) {
    const silence = `no heartbeat for ${Math.round(heartbeatAge / 1000)} s`;
    if (fullStore) return continueAfterStoreFull(silence, fullStore);
    return { kind: 'recover', reason: 'frozen', detail: silence };
  }
  const call = task.inFlight;
  if (!call || call.deadlineAt > now) return HANDS_OFF;
  const abortBy = call.deadlineAt + 2 * limits.heartbeatIntervalMs;
  if (now < abortBy) return { kind: 'request_abort', call, lookAgainAt: abortBy };
  const late = Math.round((now - call.deadlineAt) / 1000);
  const overran = `${call.kind} call ${call.name} overran its deadline by ${late} s and the worker did not abort it`;
  if (fullStore) return continueAfterStoreFull(overran, fullStore);
  return { kind: 'recover', reason: 'frozen', detail: overran };
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
