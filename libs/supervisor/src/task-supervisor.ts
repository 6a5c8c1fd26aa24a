import { Inject, Injectable, Logger } from '@nestjs/common';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { METRICS_REGISTRY } from '@vigil/platform';
import { Counter, Registry } from 'prom-client';
import { TurnQueue } from '@vigil/queue';
import {
  ChildTaskRepository,
  ControlSignals,
  IllegalTransitionError,
  StaleAttemptError,
  TaskLifecycle,
  TaskRecord,
  TaskRepository,
  TERMINAL_STATUSES,
} from '@vigil/tasks';
import { ExitCheckRunner } from './exit-check.runner';
import { Lease, LeaseService } from './lease.service';
import { RetryPublisher } from './retry-publisher';

export type Suspicion = 'deadline' | 'verifying' | 'expired' | 'worker_gone' | 'hung_call';

/** What the Watcher saw before it took the lease. */
export interface Evidence {
  /** When the task's Worker was first seen without its liveness connection (worker_gone). */
  workerGoneSince?: number;
}

export type Decision =
  | 'hands_off'
  | 'recovered'
  | 'failed'
  | 'republished'
  | 'job_waiting'
  | 'completed'
  | 'verification_pending'
  | 'lease_held'
  | 'abort_requested'
  | 'nothing';

const LEASE_TTL_MS = 60_000;

/**
 * Decides about one task under its recovery lease, after re-reading it: the deterministic core of
 * the Watcher. Every write it makes is a fenced transition, so a wrong guess cannot corrupt a task.
 */
@Injectable()
export class TaskSupervisor {
  private readonly logger = new Logger(TaskSupervisor.name);
  private readonly recoveries: Counter<'reason'>;

  constructor(
    private readonly tasks: TaskRepository,
    private readonly lifecycle: TaskLifecycle,
    private readonly leases: LeaseService,
    private readonly retries: RetryPublisher,
    private readonly checks: ExitCheckRunner,
    private readonly turns: TurnQueue,
    private readonly signals: ControlSignals,
    private readonly children: ChildTaskRepository,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
    @Inject('WATCHER_ID') private readonly watcherId: string,
    @Inject(METRICS_REGISTRY) registry: Registry,
  ) {
    this.recoveries =
      (registry.getSingleMetric('vigil_recoveries_total') as Counter<'reason'> | undefined) ??
      new Counter({
        name: 'vigil_recoveries_total',
        help: 'Attempts this Watcher ended and retried, by what happened: crashed, frozen, hung_call, failed_verification',
        labelNames: ['reason'],
        registers: [registry],
      });
  }

  async inspect(
    taskId: string,
    suspicion: Suspicion,
    now = Date.now(),
    evidence: Evidence = {},
  ): Promise<Decision> {
    const decision = await this.leases.withLease(taskId, LEASE_TTL_MS, this.watcherId, async (lease) => {
      try {
        return await this.decide(taskId, suspicion, lease, now, evidence);
      } catch (error) {
        // A stop, pause or the Worker's own hand-off landed between our read and our write: the
        // fenced transition refused us, and the task is no longer ours to act on.
        if (error instanceof IllegalTransitionError || error instanceof StaleAttemptError) {
          this.logger.log(`task ${taskId} moved on during the inspection: ${error.message}`);
          return 'nothing';
        }
        throw error;
      }
    });
    return decision ?? 'lease_held';
  }

  private async decide(
    taskId: string,
    suspicion: Suspicion,
    lease: Lease,
    now: number,
    evidence: Evidence,
  ): Promise<Decision> {
    const task = await this.tasks.get(taskId);
    if (!task || TERMINAL_STATUSES.includes(task.status)) return 'nothing';
    const clock = suspicion === 'expired' ? this.clockRanOut(task, now) : undefined;
    if (clock) {
      // Only the active-time limit overrides whatever the task is doing; an unanswered question
      // fails only a task still waiting for its answer.
      await this.retries.failForLimit(task, clock.detail, lease, clock.clock);
      return 'failed';
    }
    if (suspicion === 'expired') await this.rescheduleClock(task, now);
    switch (task.status) {
      case 'waiting_on_tool':
        // A parent waiting on its children holds no Worker: nothing to be stale (docs/ARCHITECTURE.md, "Child missions").
        if (task.statusReason === 'children') return 'nothing';
        return this.checkLiveness(task, suspicion, evidence, lease, now);
      case 'running':
        return this.checkLiveness(task, suspicion, evidence, lease, now);
      case 'queued':
        return this.checkQueued(task, now);
      case 'retrying':
        return this.retries
          .publish(task, lease)
          .then((result) => (result === 'published' ? 'recovered' : 'failed'));
      case 'verifying':
        return this.verify(task, lease, now);
      default:
        return 'nothing';
    }
  }

  /**
   * The task's clock ran out: active time used up (paused and waiting time do not count), or a
   * question to a person unanswered for HUMAN_WAIT_TIMEOUT_MS. A paused task has no clock.
   */
  private clockRanOut(
    task: TaskRecord,
    now: number,
  ): { detail: string; clock: 'active_time' | 'human_wait' } | undefined {
    if (task.status === 'waiting_on_human') {
      if (task.humanDeadlineAt === null || task.humanDeadlineAt > now) return undefined;
      const waited = Math.round(this.config.humanWaitTimeoutMs / 60_000);
      return {
        detail: `the question "${task.humanQuestion ?? ''}" went unanswered for ${waited} min (HUMAN_WAIT_TIMEOUT_MS)`,
        clock: 'human_wait',
      };
    }
    if (task.activeSince === null) return undefined;
    const active = task.activeMs + Math.max(0, now - task.activeSince);
    if (active < this.config.taskMaxDurationMs) return undefined;
    return {
      detail: `TASK_MAX_DURATION_MS (${this.config.taskMaxDurationMs} ms of active time) reached`,
      clock: 'active_time',
    };
  }

  /** An expiry entry that came due early (clock skew, a stale score): put back at the real time. */
  private async rescheduleClock(task: TaskRecord, now: number): Promise<void> {
    const at =
      task.status === 'waiting_on_human'
        ? task.humanDeadlineAt
        : task.activeSince === null
          ? null
          : now + this.config.taskMaxDurationMs - task.activeMs - Math.max(0, now - task.activeSince);
    if (at !== null) await this.tasks.deferSweep(task, 'expiry', Math.max(at, now + 1000));
  }

  /**
   * Hands off while the Worker proves itself alive and no call is past its deadline
   * (docs/ARCHITECTURE.md, invariant 6). Otherwise names what happened: `crashed` (its process is
   * gone), `frozen` (connected but silent, or deaf to the abort of a call past its deadline), or,
   * for a call past its deadline in a Worker that still beats, asks that Worker to abort the call
   * (its slice then ends the turn as `hung_call`).
   */
  private async checkLiveness(
    task: TaskRecord,
    suspicion: Suspicion,
    evidence: Evidence,
    lease: Lease,
    now: number,
  ): Promise<Decision> {
    const lastProof = task.lastHeartbeatAt ?? task.updatedAt;
    const heartbeatAge = now - lastProof;
    // A dead process writes nothing: a proof of life after its connection vanished was a blip.
    if (
      suspicion === 'worker_gone' &&
      evidence.workerGoneSince !== undefined &&
      lastProof < evidence.workerGoneSince
    )
      return this.recover(
        task,
        'crashed',
        `worker ${task.workerId ?? '?'} is gone (its connection closed)`,
        lease,
        now,
      );
    if (heartbeatAge >= this.config.staleAfterMs)
      return this.recover(
        task,
        'frozen',
        `no heartbeat for ${Math.round(heartbeatAge / 1000)} s`,
        lease,
        now,
      );
    const call = task.inFlight;
    if (!call || call.deadlineAt > now) return 'hands_off';
    const grace = this.hungCallGraceMs();
    if (now < call.deadlineAt + grace) {
      await this.signals.publish({ taskId: task.id, action: 'abort_call', attempt: task.attempt });
      await this.tasks.deferSweep(task, 'calls', call.deadlineAt + grace);
      this.logger.warn(
        `task ${task.id}: ${call.kind} call ${call.name} is past its deadline, abort requested`,
      );
      return 'abort_requested';
    }
    const late = Math.round((now - call.deadlineAt) / 1000);
    const detail = `${call.kind} call ${call.name} overran its deadline by ${late} s and the worker did not abort it`;
    return this.recover(task, 'frozen', detail, lease, now);
  }

  /** How long a Worker told to abort a call has to do it: two heartbeats. */
  private hungCallGraceMs(): number {
    return 2 * this.config.heartbeatIntervalMs;
  }

  private async recover(
    task: TaskRecord,
    reason: 'crashed' | 'frozen',
    detail: string,
    lease: Lease,
    now: number,
  ): Promise<Decision> {
    this.recoveries.inc({ reason });
    await this.lifecycle.recover(task, { reason, detail, lease, now });
    const next = await this.tasks.get(task.id);
    if (!next || next.status !== 'retrying') return 'nothing';
    return (await this.retries.publish(next, lease)) === 'published' ? 'recovered' : 'failed';
  }

  /** A queued task past its pick-up deadline: fine if its job waits, republished if the job vanished. */
  private async checkQueued(task: TaskRecord, now: number): Promise<Decision> {
    if (task.parentId) {
      // A child is published only while it holds one of its parent's places.
      if (await this.children.isUnregistered(task)) {
        const registration = await this.children.register(task.parentId, task.id, now);
        if (!registration.registered) {
          await this.lifecycle.cancelChild(task, { onlyQueued: true });
          return 'nothing';
        }
      }
      if (await this.children.isHeld(task)) {
        // Its release makes it due again (transition-task.lua).
        await this.tasks.deferSweep(task, 'deadline', now + this.config.staleAfterMs);
        return 'job_waiting';
      }
    }
    const job = { taskId: task.id, attempt: task.attempt, slice: task.sliceCount + 1 };
    if (await this.turns.hasLiveJob(job)) {
      await this.tasks.deferSweep(task, 'deadline', now + this.config.staleAfterMs);
      return 'job_waiting';
    }
    await this.turns.republish({ ...job, reason: 'republished' });
    await this.tasks.deferSweep(task, 'deadline', now + this.config.staleAfterMs);
    this.logger.warn(`task ${task.id}: slice job of attempt ${task.attempt} was missing, republished`);
    return 'republished';
  }

  /** Only evidence promotes a task: its exit criteria, checked against the external system. */
  private async verify(task: TaskRecord, lease: Lease, now: number): Promise<Decision> {
    const run = await this.checks.run(task, AbortSignal.timeout(LEASE_TTL_MS / 2));
    if (run.unavailable.length > 0) {
      await this.tasks.deferSweep(task, 'verifying', now + this.config.watcherIntervalMs);
      this.logger.warn(
        `task ${task.id}: checks unavailable (${run.unavailable.map((u) => u.check).join(', ')}), retrying later`,
      );
      return 'verification_pending';
    }
    const verification = { passed: run.passed, checks: run.checks, at: now };
    if (run.passed) {
      await this.lifecycle.complete(task, { verification, findings: run.findings, lease });
      return 'completed';
    }
    this.recoveries.inc({ reason: 'failed_verification' });
    await this.lifecycle.failVerification(task, { verification, lease, now });
    const next = await this.tasks.get(task.id);
    if (!next || next.status !== 'retrying') return 'nothing';
    return (await this.retries.publish(next, lease, run)) === 'published' ? 'recovered' : 'failed';
  }
}
