import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { CLOCKS_CONFIG, LIMITS_CONFIG, type ClockConfig, type LimitsConfig } from '@vigil/config';
import { METRICS_REGISTRY } from '@vigil/platform';
import { Counter, Registry } from 'prom-client';
import { SliceQueue } from '@vigil/queue';
import {
  ChildTaskRepository,
  ControlSignals,
  IllegalTransitionError,
  StaleAttemptError,
  StoreFullError,
  TaskLifecycle,
  TaskRecord,
  TaskRepository,
  type FailureReason,
} from '@vigil/tasks';
import { NOOP_TRACING, TRACING, type Tracing } from '@vigil/telemetry';
import { decisionSpan, traceVerification } from './decision-spans';
import { ExitCheckRunner } from './exit-check.runner';
import { Lease, LeaseService } from './lease.service';
import { RetryPublisher } from './retry-publisher';
import { StoreWatch } from './store-watch';
import { decide, DecisionLimits, Evidence, Suspicion, WatcherDecision } from './watcher-decision';

/** What an inspection did, as the sweep counts and logs it. */
export type InspectionOutcome =
  | 'hands_off'
  | 'recovered'
  | 'failed'
  | 'republished'
  | 'job_waiting'
  | 'completed'
  | 'verification_pending'
  | 'lease_held'
  | 'abort_requested'
  | 'store_full'
  | 'continued_after_store_full'
  | 'nothing';

const LEASE_TTL_MS = 60_000;

/**
 * Stalls a Worker names itself when it ends its attempt (docs/ARCHITECTURE.md, "Stalls, diagnosed"):
 * counted in vigil_recoveries_total when a Watcher takes the attempt on, like those it ends itself.
 */
const ENDED_BY_WORKER: ReadonlySet<FailureReason> = new Set(['hung_call', 'tool_error', 'looping']);

/**
 * Decides about one task under its recovery lease, after re-reading it: the deterministic core of
 * the Watcher. Every write it makes is a fenced transition, so a wrong guess cannot corrupt a task.
 */
@Injectable()
export class TaskSupervisor {
  private readonly logger = new Logger(TaskSupervisor.name);
  private readonly recoveries: Counter<'reason'>;
  private readonly decisionLimits: DecisionLimits;

  constructor(
    private readonly tasks: TaskRepository,
    private readonly lifecycle: TaskLifecycle,
    private readonly leases: LeaseService,
    private readonly retries: RetryPublisher,
    private readonly checks: ExitCheckRunner,
    private readonly slices: SliceQueue,
    private readonly signals: ControlSignals,
    private readonly children: ChildTaskRepository,
    @Inject(CLOCKS_CONFIG)
    private readonly clocks: Pick<
      ClockConfig,
      'staleAfterMs' | 'heartbeatIntervalMs' | 'humanWaitTimeoutMs' | 'watcherIntervalMs'
    >,
    @Inject(LIMITS_CONFIG) limits: Pick<LimitsConfig, 'taskMaxDurationMs'>,
    @Inject('WATCHER_ID') private readonly watcherId: string,
    @Inject(METRICS_REGISTRY) registry: Registry,
    private readonly store: StoreWatch,
    @Optional() @Inject(TRACING) private readonly tracing: Tracing = NOOP_TRACING,
  ) {
    const { staleAfterMs, heartbeatIntervalMs, humanWaitTimeoutMs } = clocks;
    this.decisionLimits = {
      staleAfterMs,
      heartbeatIntervalMs,
      humanWaitTimeoutMs,
      taskMaxDurationMs: limits.taskMaxDurationMs,
    };
    this.recoveries =
      (registry.getSingleMetric('vigil_recoveries_total') as Counter<'reason'> | undefined) ??
      new Counter({
        name: 'vigil_recoveries_total',
        help:
          'Attempts ended and retried, by what happened: crashed, frozen, failed_verification (ended by this Watcher), ' +
          'hung_call, tool_error, looping (ended by their Worker, counted when this Watcher takes them on)',
        labelNames: ['reason'],
        registers: [registry],
      });
  }

  async inspect(
    taskId: string,
    suspicion: Suspicion,
    now = Date.now(),
    seen: Evidence = {},
  ): Promise<InspectionOutcome> {
    const evidence: Evidence = { ...seen, store: this.store.evidence() };
    if (evidence.store?.full) return this.whileStoreFull(taskId, suspicion, evidence, now);
    try {
      const decision = await this.leases.withLease(taskId, LEASE_TTL_MS, this.watcherId, async (lease) => {
        try {
          return await this.decideAndAct(taskId, suspicion, lease, now, evidence);
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
    } catch (error) {
      // Redis filled since the last look: the lease or a move was refused, and nothing was done.
      if (!(error instanceof StoreFullError)) throw error;
      this.store.noteRefusedWrite();
      return 'store_full';
    }
  }

  /**
   * A full Redis refuses the lease itself (a write), so the decision is made on a plain read; it
   * can only be `store_full` or `nothing` (docs/operations.md, "A full Redis").
   */
  private async whileStoreFull(
    taskId: string,
    suspicion: Suspicion,
    evidence: Evidence,
    now: number,
  ): Promise<InspectionOutcome> {
    const decision = decide(await this.tasks.get(taskId), suspicion, evidence, now, this.decisionLimits);
    if (decision.kind === 'store_full' || decision.kind === 'nothing') return decision.kind;
    throw new Error(`task ${taskId}: decided ${decision.kind} while Redis is full, without a lease`);
  }

  /** The shell around the functional core: re-read under the lease, decide, carry it out. */
  private async decideAndAct(
    taskId: string,
    suspicion: Suspicion,
    lease: Lease,
    now: number,
    evidence: Evidence,
  ): Promise<InspectionOutcome> {
    const task = await this.tasks.get(taskId);
    const decision = decide(task, suspicion, evidence, now, this.decisionLimits);
    if (task && decision.kind === 'hands_off' && suspicion === 'deadline') {
      // Steps move the deadline index in strides (record-step.lua), so an entry can come due a little
      // before the heartbeat goes stale: put it back at the stale time instead of looking every sweep.
      const lastProof = task.lastHeartbeatAt ?? task.updatedAt;
      await this.tasks.deferSweep(task, 'deadline', lastProof + this.clocks.staleAfterMs);
    }
    return task ? this.act(task, decision, lease, now) : 'nothing';
  }

  private async act(
    task: TaskRecord,
    decision: WatcherDecision,
    lease: Lease,
    now: number,
  ): Promise<InspectionOutcome> {
    switch (decision.kind) {
      case 'nothing':
      case 'hands_off':
        return decision.kind;
      case 'reschedule':
        await this.tasks.deferSweep(task, 'expiry', decision.at);
        return this.act(task, decision.then, lease, now);
      case 'fail':
        decisionSpan(this.tracing, task, 'fail', {
          'vigil.limit.clock': decision.clock,
          'vigil.limit.detail': decision.detail,
        }).end();
        await this.retries.failForLimit(task, decision.detail, lease, decision.clock);
        return 'failed';
      case 'recover':
        return this.recover(task, decision.reason, decision.detail, lease, now);
      case 'request_abort':
        decisionSpan(this.tracing, task, 'request_abort', {
          'vigil.call.kind': decision.call.kind,
          'vigil.call.name': decision.call.name,
        }).end();
        await this.signals.publish({ taskId: task.id, action: 'abort_call', attempt: task.attempt });
        await this.tasks.deferSweep(task, 'calls', decision.lookAgainAt);
        this.logger.warn(
          `task ${task.id}: ${decision.call.kind} call ${decision.call.name} is past its deadline, abort requested`,
        );
        return 'abort_requested';
      case 'republish':
        return this.checkQueued(task, now);
      case 'publish_retry': {
        const ended = task.retryHistory.at(-1)?.reason;
        if (ended && ENDED_BY_WORKER.has(ended)) this.recoveries.inc({ reason: ended });
        return (await this.retries.publish(task, lease)) === 'published' ? 'recovered' : 'failed';
      }
      case 'verify':
        return this.verify(task, lease, now);
      case 'store_full':
        return 'store_full';
      case 'continue_after_store_full':
        await this.lifecycle.continueAfterStoreFull(task, { detail: decision.detail, lease });
        this.logger.warn(
          `task ${task.id}: store_full: ${decision.detail}; continued from its last recorded step as attempt ${task.attempt + 1}, no retry counted`,
        );
        return 'continued_after_store_full';
    }
  }

  private async recover(
    task: TaskRecord,
    reason: 'crashed' | 'frozen',
    detail: string,
    lease: Lease,
    now: number,
  ): Promise<InspectionOutcome> {
    this.recoveries.inc({ reason });
    decisionSpan(this.tracing, task, 'recover', {
      'vigil.recovery.reason': reason,
      'vigil.recovery.detail': detail,
    }).end();
    await this.lifecycle.recover(task, { reason, detail, lease, now });
    const next = await this.tasks.get(task.id);
    if (!next || next.status !== 'retrying') return 'nothing';
    return (await this.retries.publish(next, lease)) === 'published' ? 'recovered' : 'failed';
  }

  /** A queued task past its pick-up deadline: fine if its job waits, republished if the job vanished. */
  private async checkQueued(task: TaskRecord, now: number): Promise<InspectionOutcome> {
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
        await this.tasks.deferSweep(task, 'deadline', now + this.clocks.staleAfterMs);
        return 'job_waiting';
      }
    }
    const job = { taskId: task.id, attempt: task.attempt, slice: task.sliceCount + 1 };
    if (await this.slices.hasLiveJob(job)) {
      await this.tasks.deferSweep(task, 'deadline', now + this.clocks.staleAfterMs);
      return 'job_waiting';
    }
    await this.slices.republish({ ...job, reason: 'republished' });
    await this.tasks.deferSweep(task, 'deadline', now + this.clocks.staleAfterMs);
    this.logger.warn(`task ${task.id}: slice job of attempt ${task.attempt} was missing, republished`);
    return 'republished';
  }

  /** Only evidence promotes a task: its exit criteria, checked against the external system. */
  private async verify(task: TaskRecord, lease: Lease, now: number): Promise<InspectionOutcome> {
    const span = decisionSpan(this.tracing, task, 'verify', {});
    let run: Awaited<ReturnType<ExitCheckRunner['run']>>;
    try {
      run = await this.checks.run(task, AbortSignal.timeout(LEASE_TTL_MS / 2));
    } catch (error) {
      span.fail(error);
      span.end();
      throw error;
    }
    traceVerification(this.tracing, span, run);
    if (run.unavailable.length > 0) {
      await this.tasks.deferSweep(task, 'verifying', now + this.clocks.watcherIntervalMs);
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
