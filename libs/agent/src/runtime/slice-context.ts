import { Inject, Injectable } from '@nestjs/common';
import { LIMITS_CONFIG, type LimitsConfig } from '@vigil/config';
import type { PlanStep } from '@vigil/kinds';
import type { HeldContext } from '@vigil/tasks';
import type { LoopCounts } from './loop-counts';

/**
 * What a worker holds of a task between its slices: the context, the kind's plan for its input,
 * and what the attempt's loop guard counted (docs/ARCHITECTURE.md, "Stalls, diagnosed").
 */
export type HeldSliceContext = HeldContext<PlanStep[]> & { loops?: LoopCounts };

/**
 * The contexts this worker held at the end of each task's last slice, so that the next slice of
 * the same task, when it lands here, does not read them again if nothing changed since
 * (load-slice.lua checks that atomically). Without it, every slice re-read and re-parsed every
 * step done so far, which made a task's bookkeeping grow with the square of its length. Bounded
 * in entries (least recently stored go first); each holds one task's outputs and findings.
 */
@Injectable()
export class SliceContextCache {
  private readonly held = new Map<string, HeldSliceContext>();
  readonly capacity: number;
  /** Slice starts by where their context came from: held and current, held but out of date, none held. */
  readonly starts = { held: 0, stale: 0, none: 0 };

  constructor(@Inject(LIMITS_CONFIG) config: Pick<LimitsConfig, 'workerConcurrency'>) {
    this.capacity = Math.max(64, 4 * config.workerConcurrency);
  }

  /** Removes and returns the held context: a slice owns (and mutates) it while it runs. */
  take(taskId: string): HeldSliceContext | undefined {
    const entry = this.held.get(taskId);
    this.held.delete(taskId);
    return entry;
  }

  put(taskId: string, entry: HeldSliceContext): void {
    this.held.delete(taskId);
    this.held.set(taskId, entry);
    if (this.held.size > this.capacity) this.held.delete(this.held.keys().next().value!);
  }

  get size(): number {
    return this.held.size;
  }
}
