import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { CLOCKS_CONFIG, type ClockConfig } from '@vigil/config';
import type { InFlightCall } from '@vigil/tasks';

/** A model or tool call overran its deadline: the slice ends its attempt as `hung_call`. */
export class HungCallError extends Error {
  constructor(
    readonly call: InFlightCall,
    readonly by: 'deadline' | 'watcher',
  ) {
    super(
      by === 'deadline'
        ? `${call.kind} call ${call.name} did not answer within ${call.deadlineAt - call.since} ms`
        : `the Watcher found ${call.kind} call ${call.name} past its deadline and had it aborted`,
    );
    this.name = 'HungCallError';
  }
}

/** A call being watched: hand it back to `release` when the call ends. */
export interface Watched {
  readonly call: InFlightCall;
  readonly onOverrun: (call: InFlightCall) => void;
}

/**
 * Every model and tool call of this process under its deadline, with one timer for all of them:
 * a timer and an AbortController per call cost about 7 µs, a quarter of a scripted step's whole
 * CPU budget, where a set entry costs a fraction of one. The timer checks every
 * WATCHDOG_TICK_MS (or sooner for short deadlines), so a call is cut off at most one tick late.
 */
@Injectable()
export class CallWatchdog implements OnApplicationShutdown {
  private readonly watched = new Set<Watched>();
  private timer?: NodeJS.Timeout;
  private readonly tickMs: number;

  constructor(@Inject(CLOCKS_CONFIG) config: Pick<ClockConfig, 'modelCallTimeoutMs' | 'toolCallTimeoutMs'>) {
    this.tickMs = Math.max(
      10,
      Math.min(250, Math.floor(Math.min(config.modelCallTimeoutMs, config.toolCallTimeoutMs) / 4)),
    );
  }

  /** Watches a call until it is released; `onOverrun` runs once if it is late. */
  watch(call: InFlightCall, onOverrun: (call: InFlightCall) => void): Watched {
    const entry: Watched = { call, onOverrun };
    this.watched.add(entry);
    if (!this.timer) {
      this.timer = setInterval(() => this.check(), this.tickMs);
      this.timer.unref();
    }
    return entry;
  }

  /** The call ended (answered, failed or aborted): no longer watched. */
  release(entry: Watched): void {
    this.watched.delete(entry);
  }

  private check(now = Date.now()): void {
    for (const entry of this.watched) {
      if (entry.call.deadlineAt > now) continue;
      this.watched.delete(entry);
      entry.onOverrun(entry.call);
    }
    if (this.watched.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
