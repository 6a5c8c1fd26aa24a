import { Inject, Injectable } from '@nestjs/common';
import { Histogram, Registry } from 'prom-client';
import { METRICS_REGISTRY } from '@vigil/platform';

const NAME = 'vigil_drain_duration_seconds';

/**
 * How long a Worker's drain took on shutdown (docs/ARCHITECTURE.md, invariant 9), by whether its
 * slices all handed on in time (`drained`) or DRAIN_TIMEOUT_MS cut the rest short (`deadline`).
 * A drain is the process's last act, so this is read by a last scrape or a push on the way out.
 */
@Injectable()
export class DrainMetrics {
  private readonly duration: Histogram<'outcome'>;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.duration =
      (registry.getSingleMetric(NAME) as Histogram<'outcome'> | undefined) ??
      new Histogram({
        name: NAME,
        help: 'Time a Worker took to drain its slices on SIGTERM',
        labelNames: ['outcome'],
        buckets: [0.05, 0.25, 1, 2.5, 5, 10, 30, 60],
        registers: [registry],
      });
  }

  observe(ms: number, outcome: 'drained' | 'deadline'): void {
    this.duration.observe({ outcome }, ms / 1_000);
  }
}
