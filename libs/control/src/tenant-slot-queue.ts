import { Inject, Injectable } from '@nestjs/common';
import { LIMITS_CONFIG, type LimitsConfig, TOOLS_CONFIG, type ToolsConfig } from '@vigil/config';
import { sliceJobId } from '@vigil/queue';
import { slotRulesOf, type TaskRecord, TenantSlots } from '@vigil/tasks';

/**
 * A created task joins its tenant's queue for a running place at once (docs/operations.md, "Tenant
 * limits"), so the fair share sees the tenant waiting while its first slice job is still behind
 * other tenants' jobs. A tenant under no rule (no `maxRunning`, TENANT_FAIR_SHARE off) costs no call.
 */
@Injectable()
export class TenantSlotQueue {
  constructor(
    private readonly slots: TenantSlots,
    @Inject(TOOLS_CONFIG) private readonly tools: Pick<ToolsConfig, 'toolCatalog'>,
    @Inject(LIMITS_CONFIG) private readonly limits: Pick<LimitsConfig, 'tenantFairShare'>,
  ) {}

  async join(task: Pick<TaskRecord, 'id' | 'tenantId'>): Promise<void> {
    const rules = slotRulesOf(this.tools.toolCatalog, task.tenantId, this.limits.tenantFairShare);
    if (!rules) return;
    const jobId = sliceJobId({ taskId: task.id, attempt: 1, slice: 1 });
    await this.slots.enqueue(task.tenantId, { taskId: task.id, jobId }, rules);
  }
}
