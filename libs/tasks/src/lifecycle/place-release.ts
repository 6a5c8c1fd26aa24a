import { Logger } from '@nestjs/common';
import type { TaskStatus } from '../task-status';
import type { ParkedSlice } from '../tenants/tenant-slots';
import type { SlicePublisher } from './ports';
import type {
  ForgetResult,
  ForgetTarget,
  TransitionCommand,
  TransitionResult,
  TransitionStore,
  TransitionTarget,
} from './transition-command';

/** Where running places go back (libs/tasks `TenantSlots`, release-tenant-slot.lua). */
export interface RunningPlaces {
  release(tenantId: string, taskId: string, staleMs: number, now?: number): Promise<ParkedSlice[]>;
}

/** A task holds a running place, or keeps it for its next slice, only while queued or running. */
export function holdsPlace(status: TaskStatus): boolean {
  return status === 'queued' || status === 'running';
}

/**
 * The transition writer, followed by the running place's release on every move that takes a task
 * out of queued or running (docs/operations.md, "Tenant limits"): a pause or stop between slices,
 * a failed attempt at its claim, a recovery, a claim of done, a wait, an end. Moves that keep the
 * task queued or running cost nothing more. The release wakes the parked slices whose turn it is.
 * A release that fails leaves the place to its lease, which lapses after STALE_AFTER_MS.
 */
export class PlaceReleasingStore implements TransitionStore {
  private readonly logger = new Logger('RunningPlaces');

  constructor(
    private readonly inner: TransitionStore,
    private readonly places: RunningPlaces,
    private readonly slices: SlicePublisher,
    private readonly staleMs: number,
  ) {}

  async apply(task: TransitionTarget, command: TransitionCommand): Promise<TransitionResult> {
    const result = await this.inner.apply(task, command);
    if (result.from && holdsPlace(result.from) && !holdsPlace(result.status)) await this.release(task);
    return result;
  }

  forget(target: ForgetTarget): Promise<ForgetResult> {
    return this.inner.forget(target);
  }

  private async release(task: TransitionTarget): Promise<void> {
    try {
      const parked = await this.places.release(task.tenantId, task.id, this.staleMs);
      await Promise.all(parked.map((slice) => this.slices.wakeParked?.(slice.taskId, slice.jobId)));
    } catch (error) {
      // The move is made; its place lapses with its lease. Nothing else depends on this call.
      this.logger.warn(`task ${task.id}: running place not given back: ${String(error)}`);
    }
  }
}
