import type { Finding } from './history/finding';
import type { UserMessage } from './history/user-message';
import type { CheckResult, FailureReason, StructuredFailure } from './task.types';

/**
 * The `data` of each task event on the shard's stream, by event type (docs/ARCHITECTURE.md,
 * "Events"). The scripts of libs/tasks write them (the lifecycle's transitions, heartbeats, steps,
 * updates); libs/events reads them as `TaskEvent`. Field names and values are the wire format.
 */

/** A Worker's heartbeat: only what it reported (values as stored: strings). */
export interface HeartbeatProgress {
  currentStep?: string;
  completedUnits?: string;
  totalUnits?: string;
  inFlight?: string;
  loopLagMs?: string;
}

/** A recorded step. */
export interface StepProgress {
  currentStep: string;
  completedUnits: number;
  totalUnits?: number;
  step: number;
}

/** A user update claimed by the notifier (claim-update.lua): the message it carries. */
export interface UpdateProgress {
  update: number;
  message: UserMessage;
}

/** A parent parked until its children end (await_children). */
export interface ChildrenWait {
  waitingOn: 'children';
}

/** The task waits for one of its tenant's running places (docs/operations.md, "Tenant limits"). */
export type TenantSlotWait =
  | { waitingOn: 'tenant_max_running'; maxRunning: number }
  | { waitingOn: 'tenant_fair_share'; weight: number };

/** The last child of a waiting parent ended: the parent is queued (transition-task.lua). */
export interface ChildrenEnded {
  children: 'ended';
}

/** An attempt failed: reported by its Worker, or found by the Watcher. */
export interface AttemptFailed {
  turnFailed: FailureReason;
  detail?: string;
  /** A failed verification: the checks that did not pass. */
  failedChecks?: string[];
}

/**
 * A task continued after Redis was full (docs/operations.md, "A full Redis"): its heartbeat went
 * stale while writes were refused; no attempt failed and no retry is counted.
 */
export interface StoreFullHandOff {
  handedOn: 'store_full';
  detail: string;
}

/** A slice handed on to the next one: nothing to say. */
export type NoData = Record<string, never>;

export type ProgressData =
  | HeartbeatProgress
  | StepProgress
  | UpdateProgress
  | ChildrenWait
  | TenantSlotWait
  | ChildrenEnded
  | AttemptFailed
  | StoreFullHandOff
  | NoData;

export interface PausedData {
  by: 'user' | 'limit' | 'conversation' | 'worker';
  reason?: 'budget' | 'global_spend_limit' | 'tenant_daily_budget' | 'archived' | 'kind_version_unavailable';
  detail?: string;
}

export interface ResumedData {
  /** `worker`: a Worker that runs the task's kind version took it up (docs/kinds.md, "Versions"). */
  by?: 'user' | 'worker';
  /** A person's answer to the task's question. */
  input?: true;
  resolution?: 'done' | 'not_done';
}

export interface CancelledData {
  by?: 'user' | 'parent';
  /** A child stopped with its parent. */
  parentId?: string;
}

/** An instruction given to the task while it ran (steer-task.lua; docs/api.md, "Steering"). */
export interface SteeredData {
  id: string;
  text: string;
  /** The action log's length when it was given: it applies from the next model call on. */
  afterStep: number;
}

export interface TaskEventDataMap {
  'task.created': NoData;
  'task.started': NoData;
  'task.slice_started': NoData;
  /** A finding as the step that recorded it stored it (`record_finding`). */
  'task.finding': Finding;
  'task.progress': ProgressData;
  /** A `message_user` call: the agent's own words. */
  'task.message': { kind: 'agent'; text: string };
  'task.waiting_on_human': { question: string; reason?: 'unresolved_write' };
  'task.verifying': { claim: string };
  'task.recovered': { retryNumber: number; reason: FailureReason; completedUnits: number };
  'task.completed': { checks: Pick<CheckResult, 'check' | 'expected' | 'actual'>[] };
  'task.failed': {
    reason: StructuredFailure['reason'];
    detail: string;
    completedUnits: number;
    totalUnits: number | null;
  };
  'task.cancelled': CancelledData;
  'task.paused': PausedData;
  'task.resumed': ResumedData;
  'task.steered': SteeredData;
}

export type TaskEventName = keyof TaskEventDataMap;
