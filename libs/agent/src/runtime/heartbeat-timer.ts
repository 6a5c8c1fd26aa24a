/**
 * Beats every interval while a slice is in flight, so a long model or tool call still proves the
 * Worker alive. A beat the task refuses (fenced, stopped) calls onLost once; the slice then aborts.
 */
export class HeartbeatTimer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly beat: () => Promise<void>,
    private readonly onLost: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.beat().catch((error: unknown) => {
        if (this.stopped) return;
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
