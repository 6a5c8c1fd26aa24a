import { randomBytes } from 'node:crypto';
import type { ProviderName } from '@vigil/config';
import type { UnresolvedWrite } from '../history/history.types';
import type { TaskStatus } from '../task-status';
import type { FailureReason, TaskRecord } from '../task.types';
import type { TenantSlotWait } from '../task-event-data';
import type { LifecycleDeps } from './ports';
import type { TransitionResult, TransitionTarget } from './transition-command';

/** The states in which a slice holds its task: every Worker move after the claim starts from one. */
export const SLICE_HOLDERS: readonly TaskStatus[] = ['running', 'waiting_on_tool'];

interface SliceMove {
  /** The attempt the Worker's slice runs for (the fencing token). */
  attempt: number;
  now?: number;
}

/** A slice's start: who runs it, on which provider, with which code. */
interface SliceStart extends SliceMove {
  workerId: string;
  provider: ProviderName;
  codeVersion: string;
}

/** A move that may publish the next slice: `slice` is the one ending. */
interface NextSliceMove extends SliceMove {
  slice: number;
  /** Runs after the record changed and before the next slice is published (the held context). */
  beforeNextSlice?: () => void;
}

/** The Worker's moves (docs/ARCHITECTURE.md, "The task lifecycle"): each fenced by its attempt. */
export class WorkerMoves {
  constructor(private readonly deps: LifecycleDeps) {}

  /** queued → running for this slice's attempt: the slice is the Worker's. */
  claimSlice(task: TransitionTarget, move: SliceStart): Promise<TransitionResult> {
    const now = move.now ?? Date.now();
    const { workerId, provider, codeVersion } = move;
    return this.deps.store.apply(task, {
      operation: 'claim_slice',
      to: 'running',
      attempt: move.attempt,
      from: ['queued'],
      increments: { sliceCount: 1 },
      fields: { workerId, lastHeartbeatAt: now, provider, codeVersion },
      eventData: {},
      now,
    });
  }

  /**
   * The slice used its steps and the same Worker runs the next one at once, with no job between
   * (docs/ARCHITECTURE.md, "Named transitions"): running → running for the next slice, as a
   * hand-off and the next claim would leave it. Refused unless the task still runs this attempt.
   * Written with the steps of the same tick (lua/includes/continue-slice.lua), not as a
   * transition call of its own: the status does not change.
   */
  async continueSlice(task: TransitionTarget, move: SliceStart): Promise<TransitionResult> {
    const { continuations } = this.deps;
    if (!continuations) throw new Error(`task ${task.id}: only a Worker's lifecycle continues a slice`);
    const { attempt, workerId, provider, codeVersion } = move;
    await continuations.continueSlice(task.id, { attempt, workerId, provider, codeVersion }, move.now);
    return { status: 'running', attempt, due: [], from: 'running' };
  }

  /** The slice used its steps (or its Worker drains): queued again, and the next slice published. */
  async handOffSlice(task: TransitionTarget, move: NextSliceMove): Promise<TransitionResult> {
    const result = await this.deps.store.apply(task, {
      operation: 'hand_off_slice',
      to: 'queued',
      attempt: move.attempt,
      from: SLICE_HOLDERS,
      eventData: {},
      now: move.now ?? Date.now(),
    });
    await this.publishNext(task, move);
    return result;
  }

  /** The agent says it finished: a claim, never completion. The Watcher checks it at once. */
  async claimDone(task: TransitionTarget, move: SliceMove & { claim: string }): Promise<TransitionResult> {
    const now = move.now ?? Date.now();
    const result = await this.deps.store.apply(task, {
      operation: 'claim_done',
      to: 'verifying',
      attempt: move.attempt,
      from: SLICE_HOLDERS,
      fields: { claim: { summary: move.claim, attempt: move.attempt, at: now } },
      eventData: { claim: move.claim },
      now,
    });
    // A claim is checked within a second, not at the next sweep (the sweep is the backstop).
    await this.deps.wakeups.publish({ taskId: task.id, attempt: move.attempt, reason: 'verifying' });
    return result;
  }

  /**
   * Waits for a person: the agent's own question, or a write nobody can settle but a person
   * (`unresolvedWrite`, docs/missions.md, "Writes never repeated").
   */
  askPerson(
    task: TransitionTarget,
    move: SliceMove & { question: string; unresolvedWrite?: UnresolvedWrite },
  ): Promise<TransitionResult> {
    const { unresolvedWrite } = move;
    return this.deps.store.apply(task, {
      operation: 'ask_person',
      to: 'waiting_on_human',
      attempt: move.attempt,
      from: SLICE_HOLDERS,
      statusReason: unresolvedWrite ? 'unresolved_write' : 'human_input',
      fields: {
        humanQuestion: move.question,
        humanInput: null,
        // The answer link's secret (docs/conversations.md, "Human hand-offs"): new for every question.
        humanToken: randomBytes(18).toString('base64url'),
        ...(unresolvedWrite ? { unresolvedWrite } : {}),
      },
      eventData: {
        question: move.question,
        ...(unresolvedWrite ? { reason: 'unresolved_write' as const } : {}),
      },
      now: move.now ?? Date.now(),
    });
  }

  /**
   * A parent waits for its children: out of the deadline index, never stale; queued at once (and
   * its next slice published) if every child has ended already.
   */
  async awaitChildren(task: TransitionTarget, move: NextSliceMove): Promise<TransitionResult> {
    const result = await this.deps.store.apply(task, {
      operation: 'await_children',
      to: 'waiting_on_tool',
      attempt: move.attempt,
      from: SLICE_HOLDERS,
      statusReason: 'children',
      eventData: { waitingOn: 'children' },
      now: move.now ?? Date.now(),
    });
    if (result.status === 'queued') await this.publishNext(task, move);
    return result;
  }

  /** Money limits pause, never fail: `resume` with a higher budget continues from this step. */
  pauseForMoney(
    task: TransitionTarget,
    move: SliceMove & { reason: 'budget' | 'global_spend_limit' | 'tenant_daily_budget'; detail?: string },
  ): Promise<TransitionResult> {
    return this.deps.store.apply(task, {
      operation: 'pause_for_money',
      to: 'paused',
      attempt: move.attempt,
      from: SLICE_HOLDERS,
      statusReason: move.reason,
      eventData: { by: 'limit', reason: move.reason, detail: move.detail ?? '' },
      now: move.now ?? Date.now(),
    });
  }

  /**
   * A slice picked up while all its tenant's running places are taken, or while its tenant holds its
   * fair share and another waits (docs/operations.md, "Tenant limits"): the task stays queued, says
   * why, and its active clock stops until a slice claims it.
   * Its pick-up deadline moves on (STALE_AFTER_MS): the Watcher then finds its parked job waiting.
   */
  waitForTenantSlot(
    task: TransitionTarget,
    move: SliceMove & { wait: TenantSlotWait },
  ): Promise<TransitionResult> {
    return this.deps.store.apply(task, {
      operation: 'wait_for_tenant_slot',
      to: 'queued',
      attempt: move.attempt,
      from: ['queued'],
      statusReason: move.wait.waitingOn,
      eventData: move.wait,
      now: move.now ?? Date.now(),
    });
  }

  /**
   * Reports this attempt as failed (`during`: the claim, for a task at TASK_MAX_SLICES, or the
   * slice); the Watcher, woken at once, decides whether and how to retry.
   */
  async failAttempt(
    task: TransitionTarget & Pick<TaskRecord, 'model'>,
    move: SliceMove & { reason: FailureReason; detail?: string; during: 'claim' | 'slice' },
  ): Promise<TransitionResult> {
    const now = move.now ?? Date.now();
    const { reason, detail } = move;
    const result = await this.deps.store.apply(task, {
      operation: 'fail_attempt',
      to: 'retrying',
      attempt: move.attempt,
      from: move.during === 'claim' ? ['queued'] : SLICE_HOLDERS,
      failedAttempt: { model: task.model, reason, ...(detail ? { detail } : {}) },
      deadlineMs: now,
      eventData: { turnFailed: reason, ...(detail !== undefined ? { detail } : {}) },
      now,
    });
    await this.deps.wakeups.publish({ taskId: task.id, attempt: move.attempt, reason: 'turn_failed' });
    return result;
  }

  private async publishNext(task: TransitionTarget, move: NextSliceMove): Promise<void> {
    // Kept before the next slice is published: this Worker may pick it up at once.
    move.beforeNextSlice?.();
    await this.deps.slices.publish({
      taskId: task.id,
      attempt: move.attempt,
      slice: move.slice + 1,
      reason: 'next_slice',
    });
  }
}
