import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * The Worker's event-loop lag, reported with every heartbeat: a loop blocked for seconds is a
 * Worker that cannot answer its own calls in time, and the Watcher shows it beside the call.
 */
@Injectable()
export class LoopLag implements OnApplicationShutdown {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });

  constructor() {
    this.histogram.enable();
  }

  /** The worst lag since the last sample, in ms. */
  sample(): number {
    const worst = this.histogram.max / 1e6;
    this.histogram.reset();
    return Number.isFinite(worst) ? worst : 0;
  }

  onApplicationShutdown(): void {
    this.histogram.disable();
  }
}
