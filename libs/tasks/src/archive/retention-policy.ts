import { Inject, Injectable } from '@nestjs/common';
import { STORAGE_CONFIG, type StorageConfig, TOOLS_CONFIG, type ToolsConfig } from '@vigil/config';
import type { TaskStatus } from '../task-status';

/**
 * How long a finished task stays whole in Redis (docs/operations.md, "Retention and archives"):
 * TASK_RETENTION_MS for completed and cancelled tasks, FAILED_TASK_RETENTION_MS for failed ones,
 * unless the catalog's `tenants.<id>.retention` says otherwise for the task's tenant.
 */
@Injectable()
export class RetentionPolicy {
  constructor(
    @Inject(STORAGE_CONFIG)
    private readonly storage: Pick<StorageConfig, 'taskRetentionMs' | 'failedTaskRetentionMs'>,
    @Inject(TOOLS_CONFIG) private readonly tools: Pick<ToolsConfig, 'toolCatalog'>,
  ) {}

  /** The retention of a task of this tenant that ends in this terminal status. */
  retentionMs(tenantId: string, status: TaskStatus): number {
    const tenant = this.tools.toolCatalog?.tenants[tenantId]?.retention;
    return status === 'failed'
      ? (tenant?.failedMs ?? this.storage.failedTaskRetentionMs)
      : (tenant?.completedMs ?? this.storage.taskRetentionMs);
  }
}
