import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, OnModuleDestroy, Type } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { SliceContextCache, SliceOutcome, SliceRunner } from '@vigil/agent';
import { METRICS_REGISTRY } from '@vigil/platform';
import type { SliceJob } from '@vigil/queue';
import { Counter, Registry } from 'prom-client';

/** How soon a slice job another Worker's kind version runs is offered again (docs/kinds.md, "Versions"). */
const KIND_VERSION_RETRY_MS = 500;

/**
 * One processor per shard's slice queue. `maxStalledCount: 0`: a stalled slice job is failed, never
 * re-queued, because the Watcher alone recovers tasks (docs/ARCHITECTURE.md, invariant 3).
 */
export function sliceProcessorFor(
  queueName: string,
  concurrency: number,
  tenantSlotRetryMs: number,
): Type<WorkerHost> {
  @Processor(queueName, { concurrency, maxStalledCount: 0, lockDuration: 60_000 })
  class SliceProcessor extends WorkerHost implements OnModuleDestroy {
    private readonly logger = new Logger(`SliceProcessor:${queueName}`);

    private readonly slices: Counter<'outcome'>;

    constructor(
      @Inject(SliceRunner) private readonly runner: SliceRunner,
      @Inject(SliceContextCache) heldContexts: SliceContextCache,
      @Inject(METRICS_REGISTRY) registry: Registry,
    ) {
      super();
      // One counter per process, shared by the shards' processors.
      this.slices =
        (registry.getSingleMetric('vigil_slices_total') as Counter<'outcome'> | undefined) ??
        new Counter({
          name: 'vigil_slices_total',
          help: 'Slices run by this Worker, by how they ended',
          labelNames: ['outcome'],
          registers: [registry],
        });
      if (!registry.getSingleMetric('vigil_slice_context_loads_total')) {
        new Counter({
          name: 'vigil_slice_context_loads_total',
          help:
            "Slice starts by where the task's context came from: held by this Worker since the task's last slice (held), " +
            'read from Redis because the held one was out of date (held_stale) or none was held (none_held)',
          labelNames: ['source'],
          registers: [registry],
          collect() {
            this.reset();
            this.inc({ source: 'held' }, heldContexts.starts.held);
            this.inc({ source: 'held_stale' }, heldContexts.starts.stale);
            this.inc({ source: 'none_held' }, heldContexts.starts.none);
          },
        });
      }
    }

    /** A deploy, first shutdown phase: take no new slice (the running ones drain, see ActiveSlices). */
    async onModuleDestroy(): Promise<void> {
      await this.worker.pause(true);
    }

    async process(job: Job<SliceJob>, token?: string): Promise<SliceOutcome> {
      if (this.runner.draining && token) {
        // Fetched as the shutdown began: back to the queue, for another Worker, untouched.
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      // A slice continued in place ended as a hand-off would have: counted as one.
      const outcome = await this.runner.run(job.data, () => this.slices.inc({ outcome: 'next_slice' }));
      this.slices.inc({ outcome });
      const delayMs =
        outcome === 'kind_version_elsewhere'
          ? // Another live Worker runs the task's kind version: back to the queue, soon, for it.
            KIND_VERSION_RETRY_MS
          : outcome === 'parked'
            ? // Its tenant's places are all taken: the job waits delayed, woken when a place is given
              // back (or asks again after TENANT_SLOT_RETRY_MS), and this Worker takes the next job.
              tenantSlotRetryMs
            : undefined;
      if (delayMs !== undefined && token) {
        await job.moveToDelayed(Date.now() + delayMs, token);
        throw new DelayedError();
      }
      this.logger.debug(
        `task ${job.data.taskId} attempt ${job.data.attempt} slice ${job.data.slice}: ${outcome}`,
      );
      return outcome;
    }
  }
  return SliceProcessor;
}
