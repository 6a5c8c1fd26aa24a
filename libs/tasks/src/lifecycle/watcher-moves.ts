import type { TaskStatus } from '../task-status';
import type { CheckResult, RetryContext, StructuredFailure, TaskRecord, Verification } from '../task.types';
import { publishDue, type LifecycleDeps } from './ports';
import type { ForgetResult, ForgetTarget, TransitionResult, TransitionTarget } from './transition-command';
import { SLICE_HOLDERS } from './worker-moves';

/** The Watcher's recovery lease: recorded on the task as who decided (recoveryOwner). */
export interface RecoveryLease {
  owner: string;
  expiresAt: number;
}

/** A task as the Watcher read it under its lease: its attempt fences every move it makes. */
type Inspected = TransitionTarget & Pick<TaskRecord, 'attempt'>;

/** Every Watcher move records its lease; the write itself is stamped with the time it runs. */
interface WatcherMove {
  lease: RecoveryLease;
}

/** An attempt the Watcher ends: the retry is due from the clock of its decision (`now`). */
interface EndAttempt extends WatcherMove {
  now?: number;
}

const owner = (lease: RecoveryLease) => ({
  recoveryOwner: lease.owner,
  recoveryLeaseExpiresAt: lease.expiresAt,
});

function missingChecks(checks: CheckResult[]): CheckResult[] {
  return checks.filter((check) => !check.passed);
}

/** The Watcher's moves (docs/ARCHITECTURE.md, "The task lifecycle"), made under its recovery lease. */
export class WatcherMoves {
  constructor(private readonly deps: LifecycleDeps) {}

  /**
   * Ends an attempt whose Worker is gone (`crashed`) or silent (`frozen`), then tells that Worker
   * to abort if it is alive somewhere: fencing already shuts it out.
   */
  async recover(
    task: Inspected & Pick<TaskRecord, 'model'>,
    move: EndAttempt & { reason: 'crashed' | 'frozen'; detail: string },
  ): Promise<TransitionResult> {
    const { reason, detail } = move;
    const result = await this.deps.store.apply(task, {
      operation: 'recover',
      to: 'retrying',
      attempt: task.attempt,
      from: SLICE_HOLDERS,
      failedAttempt: { model: task.model, reason, detail },
      fields: owner(move.lease),
      deadlineMs: move.now ?? Date.now(),
      eventData: { turnFailed: reason, detail },
      now: Date.now(),
    });
    await this.deps.signals.publish({ taskId: task.id, action: 'stop', attempt: task.attempt });
    return result;
  }

  /**
   * A task whose heartbeat went stale while Redis was full (docs/operations.md, "A full Redis"):
   * its Worker ended the slice when a write was refused, and the task goes on from its last
   * recorded step as a normal next slice, like a drain's hand-off. The attempt is bumped only as a
   * fence (a Worker still holding the old slice is shut out); no attempt failed, so nothing joins
   * `retryHistory`, `retryCount` stays, and the event is `task.progress` (no recovery notice).
   * A write journalled without its result is reconciled by the next slice before it writes.
   */
  async continueAfterStoreFull(
    task: Inspected & Pick<TaskRecord, 'sliceCount'>,
    move: WatcherMove & { detail: string },
  ): Promise<TransitionResult> {
    const result = await this.deps.store.apply(task, {
      operation: 'continue_after_store_full',
      to: 'queued',
      attempt: task.attempt,
      from: SLICE_HOLDERS,
      increments: { attempt: 1 },
      fields: owner(move.lease),
      eventData: { handedOn: 'store_full', detail: move.detail },
      now: Date.now(),
    });
    await this.deps.signals.publish({ taskId: task.id, action: 'stop', attempt: task.attempt });
    await this.deps.slices.publish({
      taskId: task.id,
      attempt: result.attempt,
      slice: task.sliceCount + 1,
      reason: 'store_full',
    });
    return result;
  }

  /** The exit checks passed: the only way to `completed`. A child's end may make slices due. */
  async complete(
    task: Inspected & Pick<TaskRecord, 'claim'>,
    move: WatcherMove & { verification: Verification; findings: unknown[] },
  ): Promise<TransitionResult> {
    const { checks } = move.verification;
    const result = await this.deps.store.apply(task, {
      operation: 'complete',
      to: 'completed',
      attempt: task.attempt,
      from: ['verifying'],
      fields: {
        verification: move.verification,
        result: { summary: task.claim?.summary ?? '', checks, findings: move.findings },
        ...owner(move.lease),
      },
      eventData: { checks: checks.map((c) => ({ check: c.check, expected: c.expected, actual: c.actual })) },
      now: Date.now(),
    });
    await publishDue(this.deps.slices, result.due);
    return result;
  }

  /** The claim did not pass its checks: a failed attempt, retried with exactly what was missing. */
  failVerification(
    task: Inspected & Pick<TaskRecord, 'model'>,
    move: EndAttempt & { verification: Verification },
  ): Promise<TransitionResult> {
    const missing = missingChecks(move.verification.checks);
    return this.deps.store.apply(task, {
      operation: 'fail_verification',
      to: 'retrying',
      attempt: task.attempt,
      from: ['verifying'],
      failedAttempt: {
        model: task.model,
        reason: 'failed_verification',
        detail: missing
          .map((c) => `${c.check}: ${c.detail ?? `expected ${JSON.stringify(c.expected)}`}`)
          .join('; '),
      },
      fields: { verification: move.verification, ...owner(move.lease) },
      deadlineMs: move.now ?? Date.now(),
      eventData: { turnFailed: 'failed_verification', failedChecks: missing.map((c) => c.check) },
      now: Date.now(),
    });
  }

  /** retrying → queued on the next model with the retry context, and the slice published. */
  async requeueForRetry(
    task: Inspected & Pick<TaskRecord, 'spentUsd' | 'sliceCount'>,
    move: WatcherMove & { model: string; retryContext: RetryContext },
  ): Promise<TransitionResult> {
    const { retryContext } = move;
    const result = await this.deps.store.apply(task, {
      operation: 'requeue_for_retry',
      to: 'queued',
      attempt: task.attempt,
      from: ['retrying'],
      // retryCount counts retries that ran: this one does from here.
      increments: { retryCount: 1 },
      fields: {
        model: move.model,
        retryContext,
        attemptSpentFrom: task.spentUsd,
        consecutiveErrors: 0,
        lastVerifiedStep: retryContext.lastVerifiedStep,
        ...owner(move.lease),
      },
      eventData: {
        retryNumber: retryContext.retryNumber,
        reason: retryContext.reason,
        completedUnits: retryContext.lastVerifiedStep,
      },
      now: Date.now(),
    });
    await this.deps.slices.publish({
      taskId: task.id,
      attempt: task.attempt,
      slice: task.sliceCount + 1,
      reason: 'recovery',
    });
    return result;
  }

  /**
   * A clock ran out: the active-time limit fails the task whatever it is doing; an unanswered
   * question fails only a task still waiting for its answer.
   */
  failForLimit(
    task: Inspected,
    move: WatcherMove & { failure: StructuredFailure; clock: 'active_time' | 'human_wait' },
  ): Promise<TransitionResult> {
    return this.fail(task, move, move.clock === 'human_wait' ? ['waiting_on_human'] : undefined);
  }

  /**
   * No retry is left (the policy is exhausted, or a bound was reached): the task fails with its
   * report, unless a pause or stop landed while the report was being built.
   */
  giveUp(
    task: Inspected & Pick<TaskRecord, 'status'>,
    move: WatcherMove & { failure: StructuredFailure },
  ): Promise<TransitionResult> {
    return this.fail(task, move, [task.status]);
  }

  /** A child that can never hold one of its parent's places (the parent ended): cancelled. */
  cancelChild(task: TransitionTarget, move: { onlyQueued: boolean }): Promise<TransitionResult> {
    return this.deps.store.apply(task, {
      operation: 'cancel_child',
      to: 'cancelled',
      ...(move.onlyQueued ? { from: ['queued'] } : {}),
      eventData: { by: 'parent' },
      now: Date.now(),
    });
  }

  /**
   * A finished task whose retention ran out leaves Redis (docs/operations.md, "Retention and
   * archives"): only the task that was archived (its finishedAt), and a child only after its parent.
   */
  removeExpired(task: ForgetTarget): Promise<ForgetResult> {
    return this.deps.store.forget(task);
  }

  private async fail(
    task: Inspected,
    move: WatcherMove & { failure: StructuredFailure },
    from: TaskStatus[] | undefined,
  ): Promise<TransitionResult> {
    const { failure } = move;
    const result = await this.deps.store.apply(task, {
      operation: 'fail',
      to: 'failed',
      attempt: task.attempt,
      ...(from ? { from } : {}),
      fields: { failure, ...owner(move.lease) },
      eventData: {
        reason: failure.reason,
        detail: failure.detail,
        completedUnits: failure.completedUnits,
        totalUnits: failure.totalUnits,
      },
      now: Date.now(),
    });
    await this.deps.signals.publish({ taskId: task.id, action: 'stop' });
    await publishDue(this.deps.slices, result.due);
    return result;
  }
}
