import { Inject, Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import { METRICS_REGISTRY } from './metrics';

const ARCHIVED = 'vigil_archived_total';
const FAILURES = 'vigil_archive_failures_total';

/**
 * What retention did with finished tasks (docs/operations.md, "Sizing Redis"), counted by the
 * process that runs the retention sweep (the Watcher): each task that left Redis once its retention
 * ran out (written to the object store, read back and compared first; deleted with ARCHIVE=off),
 * and each archive write that failed or did not read back (the task stays in Redis and is tried
 * again). Declared once here, injected where the sweep's report is counted. Unlabelled, so both
 * series are exported at 0 from boot and `increase()` has a baseline.
 */
@Injectable()
export class ArchiveMetrics {
  private readonly archivedTasks: Counter;
  private readonly failures: Counter;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    // Get-or-create: two modules of one process may each provide this over the one registry.
    this.archivedTasks =
      (registry.getSingleMetric(ARCHIVED) as Counter | undefined) ??
      new Counter({
        name: ARCHIVED,
        help: 'Finished tasks whose retention ran out and that left Redis (archived, or deleted with ARCHIVE=off)',
        registers: [registry],
      });
    this.failures =
      (registry.getSingleMetric(FAILURES) as Counter | undefined) ??
      new Counter({
        name: FAILURES,
        help: 'Archive writes that failed or did not read back; the task stays in Redis and is tried again',
        registers: [registry],
      });
  }

  archived(tasks = 1): void {
    this.archivedTasks.inc(tasks);
  }

  failed(tasks = 1): void {
    this.failures.inc(tasks);
  }
}
