import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  CLOCKS_CONFIG,
  type ClockConfig,
  LIMITS_CONFIG,
  type LimitsConfig,
  TOOLS_CONFIG,
  type ToolsConfig,
} from '@vigil/config';
import { SliceQueue, sliceJobId, type SliceJob } from '@vigil/queue';
import {
  slotLease,
  slotRulesOf,
  TaskLifecycle,
  type TaskRecord,
  TenantSlots,
  type SlotLease,
  type SlotRules,
  type TenantSlotWait,
} from '@vigil/tasks';

/**
 * Running places on the Worker's side (docs/operations.md, "Tenant limits"): a slice runs only
 * while its task holds a place, under its tenant's `maxRunning` and the weighted fair share between
 * tenants. Without a place the slice job is parked (delayed) by the processor and the Worker takes
 * the next job at once, whoever's it is; the task stays queued with reason `tenant_max_running` or
 * `tenant_fair_share`. A task keeps its place from slice to slice; the lifecycle gives it back on
 * any move out of queued or running, which wakes the parked jobs whose turn it is. With
 * TENANT_FAIR_SHARE off, a tenant without `maxRunning` costs no Redis call.
 */
@Injectable()
export class TenantSlotGate {
  private readonly logger = new Logger(TenantSlotGate.name);
  private readonly lease: SlotLease;
  private readonly fairShare: boolean;

  constructor(
    private readonly slots: TenantSlots,
    private readonly lifecycle: TaskLifecycle,
    private readonly queue: SliceQueue,
    @Inject(TOOLS_CONFIG) private readonly tools: Pick<ToolsConfig, 'toolCatalog'>,
    @Inject(CLOCKS_CONFIG) clocks: Pick<ClockConfig, 'staleAfterMs'>,
    @Inject(LIMITS_CONFIG) limits: Pick<LimitsConfig, 'tenantSlotRetryMs' | 'tenantFairShare'>,
  ) {
    this.lease = slotLease({
      staleAfterMs: clocks.staleAfterMs,
      tenantSlotRetryMs: limits.tenantSlotRetryMs,
    });
    this.fairShare = limits.tenantFairShare;
  }

  /** The rules the task's tenant runs under, or undefined when none applies. */
  private rulesOf(task: Pick<TaskRecord, 'tenantId'>): SlotRules | undefined {
    return slotRulesOf(this.tools.toolCatalog, task.tenantId, this.fairShare);
  }

  /** `run`: the task holds a place (or no rule applies); `park`: the slice must wait its turn. */
  async enter(task: TaskRecord, job: SliceJob): Promise<'run' | 'park'> {
    const rules = this.rulesOf(task);
    if (!rules) return 'run';
    const claim = await this.slots.claim(
      task.tenantId,
      { taskId: task.id, jobId: sliceJobId(job) },
      rules,
      this.lease,
    );
    if (claim.granted) return 'run';
    // The tenant whose turn it is may be parked itself: its job is due now, not at its next retry.
    await Promise.all(claim.wake.map((slice) => this.queue.wakeParked(slice.taskId, slice.jobId)));
    const wait: TenantSlotWait =
      claim.reason === 'max'
        ? { waitingOn: 'tenant_max_running', maxRunning: rules.maxRunning ?? 0 }
        : { waitingOn: 'tenant_fair_share', weight: rules.weight };
    if (task.statusReason !== wait.waitingOn)
      await this.lifecycle.waitForTenantSlot(task, { attempt: job.attempt, wait });
    return 'park';
  }

  /**
   * Keeps the place while the slice runs, whatever its steps do (the heartbeat timer pauses while
   * steps are recorded). Returns the stop.
   */
  hold(task: TaskRecord): () => void {
    if (!this.rulesOf(task)) return () => undefined;
    const timer = setInterval(
      () => {
        this.slots
          .renew(task.tenantId, task.id, this.lease.leaseMs)
          .catch((error: unknown) =>
            this.logger.warn(`task ${task.id}: running place not renewed: ${String(error)}`),
          );
      },
      Math.max(10, Math.floor(this.lease.leaseMs / 3)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * A claim that took a place but no slice (the task moved between its load and its claim): the
   * place goes back, and the parked slices whose turn it is are woken. Every other end of a
   * task's slices gives its place back in the lifecycle's move.
   */
  async leave(task: TaskRecord): Promise<void> {
    if (!this.rulesOf(task)) return;
    const parked = await this.slots.release(task.tenantId, task.id, this.lease.staleMs);
    await Promise.all(parked.map((slice) => this.queue.wakeParked(slice.taskId, slice.jobId)));
  }
}
