import { Inject, Injectable, Logger } from '@nestjs/common';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { TurnQueue } from '@vigil/queue';
import {
  ControlSignals,
  FailureReason,
  IllegalTransitionError,
  StaleAttemptError,
  TaskRecord,
  TaskRepository,
  TERMINAL_STATUSES,
} from '@vigil/tasks';
import { ExitCheckRunner } from './exit-check.runner';
import { Lease, LeaseService } from './lease.service';
import { RetryPublisher } from './retry-publisher';

export type Suspicion = 'deadline' | 'verifying' | 'expired' | 'worker_gone';

export type Decision =
  | 'hands_off'
  | 'recovered'
  | 'failed'
  | 'republished'
  | 'job_waiting'
  | 'completed'
  | 'verification_pending'
  | 'lease_held'
  | 'nothing';

const LEASE_TTL_MS = 60_000;

/**
 * Decides about one task under its recovery lease, after re-reading it: the deterministic core of
 * the Watcher. Every write it makes is a fenced transition, so a wrong guess cannot corrupt a task.
 */
@Injectable()
export class TaskSupervisor {
  private readonly logger = new Logger(TaskSupervisor.name);

  constructor(
    private readonly tasks: TaskRepository,
    private readonly leases: LeaseService,
    private readonly retries: RetryPublisher,
    private readonly checks: ExitCheckRunner,
    private readonly turns: TurnQueue,
    private readonly signals: ControlSignals,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
    @Inject('WATCHER_ID') private readonly watcherId: string,
  ) {}

  async inspect(taskId: string, suspicion: Suspicion, now = Date.now()): Promise<Decision> {
    const decision = await this.leases.withLease(taskId, LEASE_TTL_MS, this.watcherId, async (lease) => {
      try {
        return await this.decide(taskId, suspicion, lease, now);
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

  private async decide(taskId: string, suspicion: Suspicion, lease: Lease, now: number): Promise<Decision> {
    const task = await this.tasks.get(taskId);
    if (!task || TERMINAL_STATUSES.includes(task.status)) return 'nothing';
    if (suspicion === 'expired' && task.createdAt + this.config.taskMaxDurationMs <= now) {
      await this.retries.fail(
        task,
        'limit',
        `TASK_MAX_DURATION_MS (${this.config.taskMaxDurationMs} ms) reached`,
        lease,
        true,
      );
      return 'failed';
    }
    switch (task.status) {
      case 'running':
      case 'waiting_on_tool':
        return this.checkLiveness(task, suspicion === 'worker_gone', lease, now);
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

  /** A fresh heartbeat means hands off; a stale one, or a provably dead worker, means recovery. */
  private async checkLiveness(
    task: TaskRecord,
    workerGone: boolean,
    lease: Lease,
    now: number,
  ): Promise<Decision> {
    const heartbeatAge = now - (task.lastHeartbeatAt ?? task.updatedAt);
    if (!workerGone && heartbeatAge < this.config.staleAfterMs) return 'hands_off';
    // A vanished connection alone may be a network blip or a Redis restart: a dead worker has also
    // missed a heartbeat (a live slice beats at least every HEARTBEAT_INTERVAL_MS).
    if (workerGone && heartbeatAge < 2 * this.config.heartbeatIntervalMs) return 'hands_off';
    const reason: FailureReason = workerGone ? 'crashed' : 'timeout';
    const detail = workerGone
      ? `worker ${task.workerId ?? '?'} is gone`
      : `no heartbeat for ${Math.round(heartbeatAge / 1000)} s`;
    await this.tasks.transition(task, 'retrying', {
      attempt: task.attempt,
      from: ['running', 'waiting_on_tool'],
      failedAttempt: { model: task.model, reason, detail },
      fields: { recoveryOwner: lease.owner, recoveryLeaseExpiresAt: lease.expiresAt },
      deadlineMs: now,
      eventData: { turnFailed: reason, detail },
    });
    // Abort the old slice if its Worker is still alive somewhere (a hang): fencing already shuts it out.
    await this.signals.publish({ taskId: task.id, action: 'stop', attempt: task.attempt });
    const next = await this.tasks.get(task.id);
    if (!next || next.status !== 'retrying') return 'nothing';
    return (await this.retries.publish(next, lease)) === 'published' ? 'recovered' : 'failed';
  }

  /** A queued task past its pick-up deadline: fine if its job waits, republished if the job vanished. */
  private async checkQueued(task: TaskRecord, now: number): Promise<Decision> {
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
    const owner = { recoveryOwner: lease.owner, recoveryLeaseExpiresAt: lease.expiresAt };
    if (run.passed) {
      await this.tasks.transition(task, 'completed', {
        attempt: task.attempt,
        from: ['verifying'],
        fields: {
          verification,
          result: { summary: task.claim?.summary ?? '', checks: run.checks },
          ...owner,
        },
        eventData: {
          checks: run.checks.map((c) => ({ check: c.check, expected: c.expected, actual: c.actual })),
        },
      });
      return 'completed';
    }
    const missing = run.checks.filter((check) => !check.passed);
    await this.tasks.transition(task, 'retrying', {
      attempt: task.attempt,
      from: ['verifying'],
      failedAttempt: {
        model: task.model,
        reason: 'failed_verification',
        detail: missing
          .map((c) => `${c.check}: ${c.detail ?? `expected ${JSON.stringify(c.expected)}`}`)
          .join('; '),
      },
      fields: { verification, ...owner },
      deadlineMs: now,
      eventData: { turnFailed: 'failed_verification', failedChecks: missing.map((c) => c.check) },
    });
    const next = await this.tasks.get(task.id);
    if (!next || next.status !== 'retrying') return 'nothing';
    return (await this.retries.publish(next, lease, run)) === 'published' ? 'recovered' : 'failed';
  }
}
