import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { KindRegistry, resolveExitCriteria, validateKindInput } from '@vigil/kinds';
import { TurnQueue } from '@vigil/queue';
import { TOOL_GATEWAY, type ToolGateway } from '@vigil/tools';
import { InvalidIdempotencyKeyError, TaskRecord, TaskRepository } from '@vigil/tasks';
import { CODE_VERSION } from '@vigil/platform';
import type { CreateTaskDto } from './create-task.dto';
import { assertWebhookTarget } from '@vigil/notify';
import { ActiveTaskLimitError } from './active-task-limit';

export interface CreateTaskResult {
  task: TaskRecord;
  created: boolean;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

@Injectable()
export class CreateTaskUseCase {
  private readonly logger = new Logger(CreateTaskUseCase.name);

  constructor(
    private readonly tasks: TaskRepository,
    private readonly kinds: KindRegistry,
    private readonly turns: TurnQueue,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
    @Inject(TOOL_GATEWAY) private readonly tools: ToolGateway,
  ) {}

  async execute(tenantId: string, dto: CreateTaskDto, idempotencyKey?: string): Promise<CreateTaskResult> {
    if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey))
      throw new InvalidIdempotencyKeyError();
    const kind = this.kinds.get(dto.kind);
    const input = validateKindInput(kind, dto.input);
    // The kind's own criteria are always there; the caller's may only add to or tighten them.
    const exitCriteria = resolveExitCriteria(kind, input, dto.exitCriteria);
    // What needs the tenant or the outside world: a mission's tools, the criteria naming them, a model or a plan.
    await kind.validateForTenant?.(
      input,
      tenantId,
      { config: this.config, tools: this.tools },
      { agent: dto.agent, exitCriteria },
    );
    if (dto.notify?.webhookUrl)
      await assertWebhookTarget(dto.notify.webhookUrl, this.config.webhookAllowPrivate);

    const policy = dto.agent?.policy ?? this.config.retryPolicy;
    const requestHash = idempotencyKey ? createHash('sha256').update(canonicalJson(dto)).digest('hex') : '';
    const id = idempotencyKey
      ? `tsk_${createHash('sha256').update(`${tenantId}\n${idempotencyKey}`).digest('hex').slice(0, 24)}`
      : TaskRepository.newTaskId();

    await this.assertActiveTaskRoom(tenantId, id, idempotencyKey);

    const { task, created } = await this.tasks.create(
      id,
      {
        tenantId,
        kind: kind.name,
        title: dto.title ?? kind.defaultTitle(input),
        input,
        exitCriteria,
        budgetUsd: dto.budgetUsd ?? this.config.taskBudgetUsd,
        model: dto.agent?.model ?? this.config.firstModel,
        totalUnits: kind.totalUnits(input),
        conversationId: dto.conversationId,
        parentId: dto.parentId,
        sandbox: dto.sandbox ?? false,
        notify: dto.notify ?? {},
        agent: { ...dto.agent, policy },
        codeVersion: CODE_VERSION.label,
      },
      requestHash,
    );
    if (created) {
      try {
        await this.turns.publish({ taskId: task.id, attempt: 1, slice: 1, reason: 'created' });
      } catch (error) {
        // The task is durable; the Watcher republishes a queued task whose slice job is missing.
        this.logger.error(`enqueueing first slice of ${task.id} failed: ${String(error)}`);
      }
    }
    return { task, created };
  }

  /**
   * MAX_ACTIVE_TASKS_PER_TENANT: counted from the tenant's status indexes before the create script
   * runs, so concurrent creates may pass it by at most their number (docs/ARCHITECTURE.md,
   * "Operating Vigil"). A replay of an existing idempotent create is never refused.
   */
  private async assertActiveTaskRoom(tenantId: string, id: string, idempotencyKey?: string): Promise<void> {
    const limit = this.config.maxActiveTasksPerTenant;
    if (limit === undefined) return;
    if (idempotencyKey !== undefined && (await this.tasks.get(id))?.tenantId === tenantId) return;
    const active = await this.tasks.countActive(tenantId);
    if (active >= limit) throw new ActiveTaskLimitError(active, limit);
  }
}
