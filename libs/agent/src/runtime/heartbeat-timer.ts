import { Logger } from '@nestjs/common';

/**
 * Beats every interval while a slice is in flight, so a long model or tool call still proves the
 * Worker alive. A beat the task refuses (fenced, stopped) calls onLost once and the slice aborts;
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

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }
}
