import { Logger } from '@nestjs/common';

/**
 * Beats every interval while a slice is in flight, so a long model or tool call still proves the
 * Worker alive. A recorded step is a heartbeat already (record-step.lua): one (`touch`) restarts
 * the interval, so a slice that is making progress writes no extra beats, and no gap between two
 * proofs of life ever exceeds the interval. A beat the task refuses (fenced, stopped) calls onLost once and the slice aborts;
 * any other failure (a Redis blip, a full Redis) is logged and the next beat tries again; the same
 * failure again is not logged again, so a full Redis is one line per slice, not one per beat.
 */
export class HeartbeatTimer {
  private readonly logger = new Logger(HeartbeatTimer.name);
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastFailure = '';

  constructor(
    private readonly intervalMs: number,
    private readonly beat: () => Promise<void>,
    private readonly onLost: (error: unknown) => void,
    private readonly isLoss: (error: unknown) => boolean,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.beat().catch((error: unknown) => {
        if (this.stopped) return;
        if (!this.isLoss(error)) {
          const failure = String(error);
          if (failure !== this.lastFailure)
            this.logger.warn(`heartbeat failed, retrying at the next beat: ${failure}`);
          this.lastFailure = failure;
          return;
        }
        this.stop();
        this.onLost(error);
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Something else just proved the Worker alive (a recorded step). */
  touch(): void {
    this.timer?.refresh();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }
}
