import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { KindBinder, kindVersionOf, resolveExitCriteria, validateKindInput } from '@vigil/kinds';
import { SliceQueue } from '@vigil/queue';
import {
  ArchivedTasks,
  archivedTaskRecord,
  type ChildPlacement,
  IdempotencyConflictError,
  ChildTaskRepository,
  InvalidIdempotencyKeyError,
  IllegalTransitionError,
  InvalidTaskInputError,
  TaskNotActiveError,
  TaskRecord,
  TaskLifecycle,
  TaskRepository,
  TERMINAL_STATUSES,
} from '@vigil/tasks';
import { CODE_VERSION } from '@vigil/platform';
import { GEN_AI, NOOP_TRACING, TRACING, VIGIL, type Tracing } from '@vigil/telemetry';
import type { CreateTaskDto } from './create-task.dto';
import { CREATION_SETTINGS, type CreationSettings } from './creation-settings';
import { assertWebhookTarget } from '@vigil/notify';
import { ActiveTaskLimitError } from './active-task-limit';
import { TenantSlotQueue } from './tenant-slot-queue';

export interface CreateTaskResult {
  task: TaskRecord;
  created: boolean;
  /** A child's place among its parent's children (docs/missions.md, "Child missions"). */
  placement?: ChildPlacement;
}

/** How a child is made by its parent's `start_subtask` (docs/missions.md, "Child missions"). */
export interface ChildCreation {
  /** The call's logical step: the child's id is derived from it and the parent's. */
  stepKey: string;
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
    private readonly kinds: KindBinder,
    private readonly slices: SliceQueue,
    @Inject(CREATION_SETTINGS) private readonly config: CreationSettings,
    private readonly children: ChildTaskRepository,
    private readonly lifecycle: TaskLifecycle,
    private readonly archived: ArchivedTasks,
    @Optional() @Inject(TRACING) private readonly tracing: Tracing = NOOP_TRACING,
    @Optional() private readonly tenantQueue?: TenantSlotQueue,
  ) {}

  async execute(
    tenantId: string,
    dto: CreateTaskDto,
    idempotencyKey?: string,
    child?: ChildCreation,
  ): Promise<CreateTaskResult> {
    const startedAt = Date.now();
    const result = await this.create(tenantId, dto, idempotencyKey, child);
    if (result.created && this.tracing.enabled) this.traceCreation(result.task, startedAt);
    return result;
  }

  /**
   * The task's trace begins here (docs/observability.md, "One trace per task"): its root span, ids
   * derived from the task id, and attempt 1's span under it. A replayed Idempotency-Key made
   * nothing and adds nothing.
   */
  private traceCreation(task: TaskRecord, startedAt: number): void {
    const attributes = {
      [VIGIL.taskId]: task.id,
      [VIGIL.tenantId]: task.tenantId,
      [VIGIL.kind]: task.kind,
      [VIGIL.parentTaskId]: task.parentId ?? undefined,
      [GEN_AI.conversationId]: task.conversationId ?? undefined,
    };
    const root = this.tracing.startTaskRoot(task.id, 'task.create', {
      kind: 'server',
      startTime: startedAt,
      attributes: { ...attributes, 'vigil.task.budget_usd': task.budgetUsd },
      ...(task.parentId ? { linkedTasks: [task.parentId] } : {}),
    });
    this.tracing
      .startAttempt(task.id, 1, {
        attributes: {
          ...attributes,
          [VIGIL.attempt]: 1,
          [VIGIL.attemptReason]: 'created',
          [VIGIL.model]: task.model,
        },
      })
      .end();
    root.end();
  }

  private async create(
    tenantId: string,
    dto: CreateTaskDto,
    idempotencyKey?: string,
    child?: ChildCreation,
  ): Promise<CreateTaskResult> {
    if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey))
      throw new InvalidIdempotencyKeyError();
    // Another tenant's parent is a 404, like any task of theirs.
    const parent = dto.parentId ? await this.tasks.getForTenant(dto.parentId, tenantId) : undefined;
    if (parent && TERMINAL_STATUSES.includes(parent.status))
      throw new TaskNotActiveError(parent.id, parent.status);
    const { kind, input, exitCriteria } = await this.validated(tenantId, dto);

    const policy = dto.agent?.policy ?? this.config.retryPolicy;
    // A child's id is derived too: a replayed start_subtask must be the same request.
    const requestHash =
      idempotencyKey || child ? createHash('sha256').update(canonicalJson(dto)).digest('hex') : '';
    const id = this.idFor(tenantId, parent, idempotencyKey, child);

    // A repeat of a request whose task has left Redis for the archive is answered from there, never
    // created again under the same id (docs/api.md, "Archived tasks").
    if (idempotencyKey) {
      const archived = await this.archived.find(tenantId, id);
      if (archived) {
        if (archived.record.requestHash !== requestHash) throw new IdempotencyConflictError(id);
        return { task: archivedTaskRecord(archived), created: false };
      }
    }
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
        kindVersion: kindVersionOf(kind),
      },
      requestHash,
    );
    let placement: ChildPlacement | undefined;
    if (parent) {
      const registration = await this.children.register(parent.id, task.id);
      if (!registration.registered) {
        // A child that already ended has nothing to cancel; any other failure is the caller's to see.
        await this.lifecycle.cancelChild(task, { onlyQueued: false }).catch((error: unknown) => {
          if (!(error instanceof IllegalTransitionError)) throw error;
        });
        throw new TaskNotActiveError(parent.id, 'cancelled');
      }
      // A held child is published when a place frees (transition-task.lua); the sweep is the backstop.
      placement = registration.placement;
      if (!registration.created || placement !== 'running') return { task, created, placement };
    }
    if (created || parent) {
      // In its tenant's queue before its job can be picked up (docs/operations.md, "Tenant limits");
      // without it the task still runs, and joins the queue at its first claim.
      await this.tenantQueue?.join(task).catch((error: unknown) => {
        this.logger.warn(`task ${task.id}: not queued for a running place at creation: ${String(error)}`);
      });
      try {
        await this.slices.publish({ taskId: task.id, attempt: 1, slice: 1, reason: 'created' });
      } catch (error) {
        // The task is durable; the Watcher republishes a queued task whose slice job is missing.
        this.logger.error(`enqueueing first slice of ${task.id} failed: ${String(error)}`);
      }
    }
    return placement ? { task, created, placement } : { task, created };
  }

  /**
   * Everything a create checks about the body before it writes, without writing: a schedule's
   * task is checked when the schedule is made, not first at its first fire (docs/schedules.md).
   */
  async check(tenantId: string, dto: CreateTaskDto): Promise<void> {
    await this.validated(tenantId, dto);
  }

  private async validated(tenantId: string, dto: CreateTaskDto) {
    const kind = this.kinds.registry.get(dto.kind);
    const input = validateKindInput(kind, dto.input);
    // The kind's own criteria are always there; the caller's may only add to or tighten them.
    const exitCriteria = resolveExitCriteria(kind, input, dto.exitCriteria);
    // What needs the tenant or the outside world: a mission's tools, the criteria naming them, a model or a plan.
    await kind.validateForTenant?.(input, tenantId, this.kinds.services, { agent: dto.agent, exitCriteria });
    if (dto.notify?.webhookUrl)
      await assertWebhookTarget(dto.notify.webhookUrl, this.config.webhookAllowPrivate);
    return { kind, input, exitCriteria };
  }

  /**
   * A child lives on its parent's shard (docs/missions.md, "Child missions"): its id is derived
   * from the parent and the `start_subtask` step, or from the Idempotency-Key, or random, and in
   * every case searched until it hashes to the parent's shard.
   */
  private idFor(
    tenantId: string,
    parent: TaskRecord | undefined,
    idempotencyKey: string | undefined,
    child: ChildCreation | undefined,
  ): string {
    if (parent) {
      const step =
        child?.stepKey ??
        (idempotencyKey ? `key:${tenantId}\n${idempotencyKey}` : TaskRepository.newTaskId());
      return this.children.childId(parent.id, step);
    }
    if (child) throw new InvalidTaskInputError(['a child task needs parentId']);
    return idempotencyKey
      ? `tsk_${createHash('sha256').update(`${tenantId}\n${idempotencyKey}`).digest('hex').slice(0, 24)}`
      : TaskRepository.newTaskId();
  }

  /**
   * MAX_ACTIVE_TASKS_PER_TENANT: counted from the tenant's status indexes before the create script
   * runs, so concurrent creates may pass it by at most their number (docs/operations.md,
   * "Limits"). A replay of an existing idempotent create is never refused.
   */
  private async assertActiveTaskRoom(tenantId: string, id: string, idempotencyKey?: string): Promise<void> {
    const limit = this.config.maxActiveTasksPerTenant;
    if (limit === undefined) return;
    if (idempotencyKey !== undefined && (await this.tasks.get(id))?.tenantId === tenantId) return;
    const active = await this.tasks.countActive(tenantId);
    if (active >= limit) throw new ActiveTaskLimitError(active, limit);
  }
}
