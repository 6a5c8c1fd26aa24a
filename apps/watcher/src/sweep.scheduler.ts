import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { SupervisorSweep } from '@vigil/supervisor';

/** Runs a sweep every WATCHER_INTERVAL_MS, never two at once; shutdown waits for the one in flight. */
@Injectable()
export class SweepScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SweepScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly sweep: SupervisorSweep,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep
        .tick()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.error(`sweep failed: ${String(error)}`))
        .finally(() => this.schedule(this.config.watcherIntervalMs));
    }, delay);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
