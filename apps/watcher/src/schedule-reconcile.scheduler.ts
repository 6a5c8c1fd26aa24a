import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CLOCKS_CONFIG, type ClockConfig } from '@vigil/config';
import { ReconcileSchedulersUseCase } from '@vigil/schedules';

/**
 * Reconciles the schedules' job schedulers with their records (docs/schedules.md, "Reconciling") at
 * boot and every WATCHER_INTERVAL_MS, one run at a time; shutdown waits for the one in flight.
 */
@Injectable()
export class ScheduleReconcileScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ScheduleReconcileScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly reconciler: ReconcileSchedulersUseCase,
    @Inject(CLOCKS_CONFIG) private readonly clocks: Pick<ClockConfig, 'watcherIntervalMs'>,
  ) {}

  onApplicationBootstrap(): void {
    this.next(0);
  }

  private next(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.reconciler
        .reconcile()
        .then(({ recreated, removed }) => {
          if (recreated.length)
            this.logger.warn(`job schedulers re-created for schedules ${recreated.join(', ')}`);
          if (removed.length)
            this.logger.warn(`job schedulers of no active schedule removed: ${removed.join(', ')}`);
        })
        .catch((error: unknown) => this.logger.error(`schedule reconcile failed: ${String(error)}`))
        .finally(() => this.next(this.clocks.watcherIntervalMs));
    }, delay);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
