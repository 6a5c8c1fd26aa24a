import type { ProviderName } from '@vigil/config';
import type { UnresolvedWrite } from '../history/history.types';
import type { TaskStatus } from '../task-status';
import type {
  AttemptFailed,
  CancelledData,
  ChildrenWait,
  TenantSlotWait,
  NoData,
  PausedData,
  ResumedData,
  StoreFullHandOff,
  TaskEventDataMap,
} from '../task-event-data';
import type {
  FailureReason,
  RetryContext,
  StatusReason,
  StructuredFailure,
  TaskRecord,
  Verification,
} from '../task.types';

/**
 * The named moves of transition-task.lua (its header lists each with its target and event), with
 * the data of the event each writes. The script refuses an operation that does not fit the
 * target; only `await_children` parks a task on its children, only `archive` marks it archived.
 */
export interface OperationEventData {
  claim_slice: NoData;
  hand_off_slice: NoData;
  claim_done: TaskEventDataMap['task.verifying'];
  ask_person: TaskEventDataMap['task.waiting_on_human'];
  await_children: ChildrenWait;
  pause_for_money: PausedData;
  fail_attempt: AttemptFailed;
  recover: AttemptFailed;
  complete: TaskEventDataMap['task.completed'];
  fail_verification: AttemptFailed;
  requeue_for_retry: TaskEventDataMap['task.recovered'];
  continue_after_store_full: StoreFullHandOff;
  fail: TaskEventDataMap['task.failed'];
  stop: CancelledData;
  cancel_child: CancelledData;
  pause: PausedData;
  archive: PausedData;
  resume: ResumedData;
  answer: ResumedData;
  await_kind_version: PausedData;
  continue_on_kind_version: ResumedData;
  wait_for_tenant_slot: TenantSlotWait;
}

export type Operation = keyof OperationEventData;

/** Hash fields a transition may set beside its status, each with its type: no other name exists. */
export interface TransitionFields {
  workerId?: string;
  lastHeartbeatAt?: number;
  provider?: ProviderName;
  codeVersion?: string;
  claim?: NonNullable<TaskRecord['claim']>;
  humanQuestion?: string;
  humanInput?: string | null;
  humanInputAt?: number;
  humanToken?: string;
  unresolvedWrite?: UnresolvedWrite;
  resolution?: 'done' | 'not_done';
  recoveryOwner?: string;
  recoveryLeaseExpiresAt?: number;
  verification?: Verification;
  result?: { summary: string; checks: unknown[]; findings: unknown[] };
  failure?: StructuredFailure;
  model?: string;
  retryContext?: RetryContext;
  attemptSpentFrom?: number;
  consecutiveErrors?: number;
  lastVerifiedStep?: number;
  budgetUsd?: number;
}

/** The counters a transition may add one to. */
export interface TransitionIncrements {
  sliceCount?: 1;
  retryCount?: 1;
  attempt?: 1;
}

interface CommandBase {
  to: TaskStatus;
  /** The writer's attempt; omitted only for a person's actions (stop, pause, resume, input). */
  attempt?: number;
  /** Compare-and-set: apply only if the stored status is one of these. */
  from?: readonly TaskStatus[];
  statusReason?: StatusReason;
  fields?: TransitionFields;
  /**
   * Marks the current attempt failed: appended to retryHistory (with what the attempt spent and
   * who ran it, from the record) and the attempt bumped. retryCount counts retries that ran: the
   * Watcher increments it when it publishes one.
   */
  failedAttempt?: { model: string; reason: FailureReason; detail?: string };
  increments?: TransitionIncrements;
  /** The deadline-index score when the target is active (default: now + STALE_AFTER_MS). */
  deadlineMs?: number;
  now: number;
}

/** One call of transition-task.lua, as the lifecycle composes it: an operation and its event's data. */
export type TransitionCommand = {
  [O in Operation]: CommandBase & { operation: O; eventData: OperationEventData[O] };
}[Operation];

export interface TransitionResult {
  status: TaskStatus;
  attempt: number;
  /**
   * Slices the transition made due (docs/missions.md, "Child missions"): children given a
   * place when a child ended, a parent queued when its last child ended. The Watcher's sweep
   * publishes them anyway; the lifecycle publishes them at once, saving a sweep interval.
   */
  due: DueSlice[];
  /** The status the move left (absent from stand-ins that do not say). */
  from?: TaskStatus;
}

export interface DueSlice {
  taskId: string;
  attempt: number;
  slice: number;
}

/** Who is transitioned: the id and tenant, and the parent when the caller has the record. */
export type TransitionTarget = Pick<TaskRecord, 'id' | 'tenantId'> & { parentId?: string | null };

/** Runs transition-task.lua: the one writer of a task's status (TransitionWriter; a recording fake in tests). */
export interface TransitionStore {
  apply(target: TransitionTarget, command: TransitionCommand): Promise<TransitionResult>;
  /** Runs forget-task.lua: removes a finished task whose archive is written (or ARCHIVE=off). */
  forget(target: ForgetTarget): Promise<ForgetResult>;
}

/** A finished task to remove, named by the finishedAt it was archived with. */
export type ForgetTarget = Pick<TaskRecord, 'id' | 'tenantId'> & {
  parentId: string | null;
  finishedAt: number;
};

/** removed · gone (already) · changed (not the task archived) · parent_live (its parent is still in Redis). */
export type ForgetResult = 'removed' | 'gone' | 'changed' | 'parent_live';

export const TRANSITION_STORE = Symbol('TRANSITION_STORE');
