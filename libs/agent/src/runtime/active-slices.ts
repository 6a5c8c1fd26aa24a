import {
  Inject,
  Injectable,
  Logger,
  OnApplicationShutdown,
  OnModuleDestroy,
  OnModuleInit,
  Optional,
} from '@nestjs/common';
import { BeforeApplicationShutdown } from '@nestjs/common';
import { CLOCKS_CONFIG, type ClockConfig } from '@vigil/config';
import { ControlSignals, InFlightCall } from '@vigil/tasks';
import { HungCallError } from './call-watchdog';
import { DrainMetrics } from './drain-metrics';

export class SliceAbortedError extends Error {
  constructor(
    reason: string,
    /** What aborted it: a stop or a pause, or the Watcher's recovery of the attempt. */
    readonly action?: 'stop' | 'pause' | 'recover',
  ) {
    super(reason);
    this.name = 'SliceAbortedError';
  }
}

/** The Worker is shutting down and DRAIN_TIMEOUT_MS passed: the slice is handed on as it stands. */
export class DrainDeadlineError extends Error {
  constructor(drainTimeoutMs: number) {
    super(`the Worker is shutting down and DRAIN_TIMEOUT_MS (${drainTimeoutMs} ms) passed`);
    this.name = 'DrainDeadlineError';
  }
}

interface ActiveSlice {
  attempt: number;
  controller: AbortController;
  /** The call the slice has in flight (for a Watcher's abort request). */
  inFlight: () => InFlightCall | null;
}

/**
 * The slices running in this process, by task. A stop or pause signal aborts the matching
 * slice's AbortController at once, which cancels its in-flight model and tool calls; a Watcher's
 * `abort_call` does the same with a HungCallError, so the slice ends its attempt as `hung_call`.
 *
 * Deploys drain (docs/ARCHITECTURE.md, invariant 9): on shutdown no new slice starts, running
 * slices end after their in-flight step and hand on as a normal next slice, and past
 * DRAIN_TIMEOUT_MS what is left is aborted and handed on all the same.
 */
@Injectable()
export class ActiveSlices
  implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(ActiveSlices.name);
  private readonly slices = new Map<string, ActiveSlice[]>();
  private unsubscribe?: () => Promise<void>;
  private drainingSince?: number;
  private readonly idle: (() => void)[] = [];

  constructor(
    private readonly signals: ControlSignals,
    @Inject(CLOCKS_CONFIG) private readonly config: Pick<ClockConfig, 'drainTimeoutMs'>,
    @Optional() private readonly drainMetrics?: DrainMetrics,
  ) {}

  async onModuleInit(): Promise<void> {
    this.unsubscribe = await this.signals.subscribe((signal) => {
      for (const slice of this.slices.get(signal.taskId) ?? []) {
        // A late signal about an old attempt must not abort the attempt that replaced it.
        if (signal.attempt !== undefined && slice.attempt > signal.attempt) continue;
        if (signal.action === 'abort_call') {
          const call = slice.inFlight();
          if (!call) continue;
          this.logger.warn(
            `task ${signal.taskId} attempt ${slice.attempt}: the Watcher aborts its hung ${call.kind} call`,
          );
          slice.controller.abort(new HungCallError(call, 'watcher'));
          continue;
        }
        this.logger.log(
          `task ${signal.taskId} attempt ${slice.attempt}: ${signal.action} requested, aborting its slice`,
        );
        slice.controller.abort(
          new SliceAbortedError(
            `task was ${signal.action === 'stop' ? 'stopped' : 'paused'}`,
            // A stop for one attempt is the Watcher's: it recovered the task from that attempt.
            signal.action === 'pause' ? 'pause' : signal.attempt === undefined ? 'stop' : 'recover',
          ),
        );
      }
    });
  }

  /** True once the Worker began shutting down: no slice starts, running ones end after their step. */
  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  /** The first shutdown phase: from now on no slice starts and running ones end after their step. */
  onModuleDestroy(): void {
    this.drainingSince ??= Date.now();
  }

  /** Waits for running slices to hand on, at most DRAIN_TIMEOUT_MS, then aborts the rest. */
  async beforeApplicationShutdown(): Promise<void> {
    this.drainingSince ??= Date.now();
    const running = this.count();
    if (running > 0) this.logger.log(`draining ${running} slices (at most ${this.config.drainTimeoutMs} ms)`);
    const drained = await this.whenIdle(this.config.drainTimeoutMs);
    if (!drained) {
      this.logger.warn(`drain deadline passed: handing on ${this.count()} slices mid-step`);
      for (const slices of this.slices.values())
        for (const slice of slices)
          slice.controller.abort(new DrainDeadlineError(this.config.drainTimeoutMs));
      await this.whenIdle(5_000);
    }
    this.logger.log(`drained ${running} slices in ${Date.now() - this.drainingSince} ms`);
    this.drainMetrics?.observe(Date.now() - this.drainingSince, drained ? 'drained' : 'deadline');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.unsubscribe?.();
  }

  register(
    taskId: string,
    attempt: number,
    inFlight: () => InFlightCall | null = () => null,
  ): AbortController {
    const controller = new AbortController();
    this.slices.set(taskId, [...(this.slices.get(taskId) ?? []), { attempt, controller, inFlight }]);
    return controller;
  }

  release(taskId: string, controller: AbortController): void {
    const rest = (this.slices.get(taskId) ?? []).filter((slice) => slice.controller !== controller);
    if (rest.length > 0) this.slices.set(taskId, rest);
    else this.slices.delete(taskId);
    if (this.slices.size === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  private count(): number {
    let count = 0;
    for (const slices of this.slices.values()) count += slices.length;
    return count;
  }

  private whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.slices.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
