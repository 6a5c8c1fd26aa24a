import { Logger } from '@nestjs/common';

/**
 * Beats every interval while a slice is in flight, so a long model or tool call still proves the
 * Worker alive. A recorded step is a heartbeat already (record-step.lua): one (`touch`) restarts
 * the interval, so a slice that is making progress writes no extra beats, and no gap between two
 * proofs of life ever exceeds the interval. A beat the task refuses (fenced, stopped) calls onLost once and the slice aborts;
 * any other failure (a Redis blip) is logged and the next beat tries again.
 */
export class HeartbeatTimer {
  private readonly logger = new Logger(HeartbeatTimer.name);
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

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
          this.logger.warn(`heartbeat failed, retrying at the next beat: ${String(error)}`);
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
