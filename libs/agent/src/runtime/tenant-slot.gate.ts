import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  CLOCKS_CONFIG,
  type ClockConfig,
  LIMITS_CONFIG,
  type LimitsConfig,
  tenantLimitsOf,
  TOOLS_CONFIG,
  type ToolsConfig,
} from '@vigil/config';
import { SliceQueue, sliceJobId, type SliceJob } from '@vigil/queue';
import { TaskLifecycle, type TaskRecord, TenantSlots, type SlotLease } from '@vigil/tasks';

/**
 * The tenant's running places on the Worker's side (docs/operations.md, "Tenant limits"): a slice of
 * a tenant with `maxRunning` runs only while its task holds a place. Without a place the slice job is
 * parked (delayed) by the processor and the Worker takes the next job at once, whoever's it is; the
 * task stays queued with reason `tenant_max_running`. A task keeps its place from slice to slice
 * and gives it back when it stops running slices, which wakes the first parked job of its tenant.
 * A tenant without `maxRunning` costs no Redis call.
 */
@Injectable()
export class TenantSlotGate {
  private readonly logger = new Logger(TenantSlotGate.name);
  private readonly lease: SlotLease;

  constructor(
    private readonly slots: TenantSlots,
    private readonly lifecycle: TaskLifecycle,
    private readonly queue: SliceQueue,
    @Inject(TOOLS_CONFIG) private readonly tools: Pick<ToolsConfig, 'toolCatalog'>,
    @Inject(CLOCKS_CONFIG) clocks: Pick<ClockConfig, 'staleAfterMs'>,
    @Inject(LIMITS_CONFIG) limits: Pick<LimitsConfig, 'tenantSlotRetryMs'>,
  ) {
    // A place outlives its holder by what the Watcher allows a silent Worker: a dead one frees it.
    // A queued task asks again every retry at the latest; two missed asks and its turn is gone.
    this.lease = {
      leaseMs: clocks.staleAfterMs,
      staleMs: clocks.staleAfterMs + 2 * limits.tenantSlotRetryMs,
    };
  }

  private maxRunningOf(task: Pick<TaskRecord, 'tenantId'>): number | undefined {
    return tenantLimitsOf(this.tools.toolCatalog, task.tenantId).maxRunning;
  }

  /** `run`: the task holds a place (or its tenant has no limit); `park`: the slice must wait its turn. */
  async enter(task: TaskRecord, job: SliceJob): Promise<'run' | 'park'> {
    const maxRunning = this.maxRunningOf(task);
    if (maxRunning === undefined) return 'run';
    const claim = await this.slots.claim(
      task.tenantId,
      { taskId: task.id, jobId: sliceJobId(job) },
      maxRunning,
      this.lease,
    );
    if (claim.granted) return 'run';
    if (task.statusReason !== 'tenant_max_running')
      await this.lifecycle.waitForTenantSlot(task, { attempt: job.attempt, maxRunning });
    return 'park';
  }

  /**
   * Keeps the place while the slice runs, whatever its steps do (the heartbeat timer pauses while
   * steps are recorded). Returns the stop.
   */
  hold(task: TaskRecord): () => void {
    if (this.maxRunningOf(task) === undefined) return () => undefined;
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

  /** The task stops running slices: its place goes back, and the first parked slices are woken. */
  async leave(task: TaskRecord): Promise<void> {
    const maxRunning = this.maxRunningOf(task);
    if (maxRunning === undefined) return;
    const parked = await this.slots.release(task.tenantId, task.id, maxRunning);
    await Promise.all(parked.map((slice) => this.queue.wakeParked(slice.taskId, slice.jobId)));
  }
}
