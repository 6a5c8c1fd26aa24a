import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import { ArchiveMetrics, METRICS_REGISTRY } from '@vigil/platform';
import { CLOCKS_CONFIG, ClockConfig, STORAGE_CONFIG, type StorageConfig } from '@vigil/config';
import { RetentionSweep, SupervisorSweep } from '@vigil/supervisor';

/**
 * Runs a sweep every WATCHER_INTERVAL_MS, the dead-Worker check every LIVENESS_INTERVAL_MS and the
 * retention sweep every WATCHER_INTERVAL_MS, never two of one kind at once; shutdown waits for
 * those in flight.
 */
@Injectable()
export class SweepScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SweepScheduler.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private livenessTimer?: NodeJS.Timeout;
  private livenessRunning?: Promise<void>;
  private retentionTimer?: NodeJS.Timeout;
  private retentionRunning?: Promise<void>;
  private stopped = false;

  private readonly duration: Histogram;
  private readonly decisions: Counter<'decision'>;

  constructor(
    private readonly sweep: SupervisorSweep,
    private readonly retention: RetentionSweep,
    @Inject(CLOCKS_CONFIG) private readonly clocks: ClockConfig,
    @Inject(STORAGE_CONFIG) private readonly storage: StorageConfig,
    @Inject(METRICS_REGISTRY) registry: Registry,
    private readonly archives: ArchiveMetrics,
  ) {
    this.duration = new Histogram({
      name: 'vigil_sweep_duration_seconds',
      help: 'Time one Watcher sweep took',
      registers: [registry],
    });
    this.decisions = new Counter({
      name: 'vigil_watcher_decisions_total',
      help: 'What the Watcher decided about the tasks it inspected',
      labelNames: ['decision'],
      registers: [registry],
    });
  }

  onApplicationBootstrap(): void {
    this.logger.log(
      this.storage.archive
        ? `finished tasks leave Redis after their retention, archived to ${this.storage.objectStoreUrl}`
        : 'ARCHIVE=off: finished tasks are deleted after their retention, without an archive',
    );
    this.schedule(0);
    this.scheduleLiveness(this.clocks.livenessIntervalMs);
    this.scheduleRetention(this.clocks.watcherIntervalMs);
  }

  private scheduleRetention(delay: number): void {
    if (this.stopped) return;
    this.retentionTimer = setTimeout(() => {
      this.retentionRunning = this.retention
        .tick()
        .then((report) => {
          this.archives.archived(report.archived + report.deleted);
          this.archives.failed(report.failed);
        })
        .catch((error: unknown) => this.logger.error(`retention sweep failed: ${String(error)}`))
        .finally(() => this.scheduleRetention(this.clocks.watcherIntervalMs));
    }, delay);
  }

  private scheduleLiveness(delay: number): void {
    if (this.stopped) return;
    this.livenessTimer = setTimeout(() => {
      this.livenessRunning = this.sweep
        .livenessTick()
        .then((report) => {
          for (const [decision, count] of Object.entries(report.decisions))
            this.decisions.inc({ decision }, count);
        })
        .catch((error: unknown) => this.logger.error(`liveness check failed: ${String(error)}`))
        .finally(() => this.scheduleLiveness(this.clocks.livenessIntervalMs));
    }, delay);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const stopTimer = this.duration.startTimer();
      this.running = this.sweep
        .tick()
        .then((report) => {
          stopTimer();
          for (const [decision, count] of Object.entries(report.decisions))
            this.decisions.inc({ decision }, count);
        })
        .catch((error: unknown) => this.logger.error(`sweep failed: ${String(error)}`))
        .finally(() => this.schedule(this.clocks.watcherIntervalMs));
    }, delay);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.livenessTimer);
    clearTimeout(this.retentionTimer);
    await Promise.all([this.running, this.livenessRunning, this.retentionRunning]);
  }
}
