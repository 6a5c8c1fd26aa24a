import { publishDue } from './publish-due';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { KindBinder, type BoundKind, type KindTool } from '@vigil/kinds';
import { TurnQueue } from '@vigil/queue';
import {
  ControlSignals,
  RetryContext,
  StructuredFailure,
  TaskContext,
  TaskContextStore,
  TaskRecord,
  TaskRepository,
  WriteJournal,
} from '@vigil/tasks';
import type { CheckRun } from './exit-check.runner';
import { FailureReporter } from './failure-report';
import type { Lease } from './lease.service';

/**
 * Takes a task whose attempt failed (`retrying`, attempt already bumped) to its next attempt or to
 * its honest end: reconciles unfinished writes, picks the next model from the bounded policy and
 * publishes the slice with a retry context — or fails the task with a structured report.
 */
@Injectable()
export class RetryPublisher {
  private readonly logger = new Logger(RetryPublisher.name);

  constructor(
    private readonly tasks: TaskRepository,
    private readonly contexts: TaskContextStore,
    private readonly kinds: KindBinder,
    private readonly turns: TurnQueue,
    private readonly journal: WriteJournal,
    private readonly failures: FailureReporter,
    private readonly signals: ControlSignals,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
  ) {}

  /** The kind's tools and the task's own (a mission's, from the catalog); none of the latter when they cannot be had. */
  private async toolsOf(bound: BoundKind, task: TaskRecord): Promise<KindTool[]> {
    try {
      return await bound.tools();
    } catch (error) {
      // The next attempt reconciles its writes itself before writing (the journal still says intent).
      this.logger.warn(`task ${task.id}: its tools are not available to reconcile: ${String(error)}`);
      return bound.kind.tools;
    }
  }

  /** `checked`: the check run of a verification that just failed, for a failure report. */
  async publish(task: TaskRecord, lease: Lease, checked?: CheckRun): Promise<'published' | 'failed'> {
    const end = this.boundReached(task);
    if (end) return this.fail(task, end.reason, end.detail, lease, false, checked);
    const context = await this.contexts.load(task.id);
    const retryContext = this.retryContextOf(task, context, await this.reconcileJournal(task, context));
    const model = this.nextModel(task);
    await this.requeue(task, lease, model, retryContext);
    this.logger.log(
      `task ${task.id}: retry ${retryContext.retryNumber} on ${model} published (attempt ${task.attempt})`,
    );
    return 'published';
  }

  /** The bound that ends this task instead of a retry, if one is reached (docs/ARCHITECTURE.md, invariant 7). */
  private boundReached(
    task: TaskRecord,
  ): { reason: StructuredFailure['reason']; detail: string } | undefined {
    const policy = this.policyOf(task);
    const last = task.retryHistory[task.retryHistory.length - 1];
    if (last?.reason === 'limit') return { reason: 'limit', detail: last.detail ?? 'a limit was reached' };
    if (task.retryCount >= policy.length)
      return { reason: 'policy_exhausted', detail: `all ${policy.length} retries of the policy failed` };
    if (task.sliceCount >= this.config.taskMaxSlices)
      return { reason: 'limit', detail: `TASK_MAX_SLICES (${this.config.taskMaxSlices}) reached` };
    return undefined;
  }

  private policyOf(task: TaskRecord): string[] {
    return task.agent.policy ?? this.config.retryPolicy;
  }

  /**
   * Attempt 1 ran on FIRST_MODEL (or the task's own); retry k runs on policy[k - 1]: the policy
   * lists the model of each retry in order, and n entries allow exactly n retries.
   */
  private nextModel(task: TaskRecord): string {
    return this.policyOf(task)[task.retryCount];
  }

  /** What the next attempt is told: why the last one ended, what is verified, what was reconciled. */
  private retryContextOf(
    task: TaskRecord,
    context: TaskContext,
    reconciled: RetryContext['reconciled'],
  ): RetryContext {
    const last = task.retryHistory[task.retryHistory.length - 1];
    return {
      retryNumber: task.retryCount + 1,
      reason: last?.reason ?? 'crashed',
      ...(last?.detail ? { detail: last.detail } : {}),
      lastVerifiedStep: context.doneSteps.size,
      ...(last?.reason === 'failed_verification' && task.verification
        ? { failedChecks: task.verification.checks.filter((check) => !check.passed) }
        : {}),
      reconciled,
    };
  }

  /** retrying → queued on the next model, then the slice job: the Worker resumes from the record. */
  private async requeue(
    task: TaskRecord,
    lease: Lease,
    model: string,
    retryContext: RetryContext,
  ): Promise<void> {
    await this.tasks.transition(task, 'queued', {
      attempt: task.attempt,
      from: ['retrying'],
      // retryCount counts retries that ran: this one does from here.
      increments: { retryCount: 1 },
      fields: {
        model,
        retryContext,
        attemptSpentFrom: task.spentUsd,
        consecutiveErrors: 0,
        lastVerifiedStep: retryContext.lastVerifiedStep,
        recoveryOwner: lease.owner,
        recoveryLeaseExpiresAt: lease.expiresAt,
      },
      eventType: 'task.recovered',
      eventData: {
        retryNumber: retryContext.retryNumber,
        reason: retryContext.reason,
        completedUnits: retryContext.lastVerifiedStep,
      },
    });
    await this.turns.publish({
      taskId: task.id,
      attempt: task.attempt,
      slice: task.sliceCount + 1,
      reason: 'recovery',
    });
  }

  /** Every write whose outcome is unknown is looked up in the external system before any retry. */
  private async reconcileJournal(
    task: TaskRecord,
    context: TaskContext,
  ): Promise<{ key: string; found: boolean }[]> {
    const bound = this.kinds.bind(task);
    const results: { key: string; found: boolean }[] = [];
    const unknown = [...context.journal].filter(([, entry]) => entry.state === 'intent' && entry.args);
    if (unknown.length === 0) return results;
    const tools = await this.toolsOf(bound, task);
    for (const [key, entry] of unknown) {
      if (!entry.args) continue;
      const tool = tools.find((candidate) => {
        try {
          return candidate.effect === 'write' && candidate.stepKey(entry.args!, task.input) === key;
        } catch {
          return false;
        }
      });
      if (!tool?.reconcile) continue;
      try {
        const found = await tool.reconcile(entry.args, {
          taskId: task.id,
          attempt: task.attempt,
          input: task.input,
          outputs: context.outputs,
          signal: AbortSignal.timeout(30_000),
          services: bound.services,
        });
        if (found !== null && found !== undefined) {
          const recorded = await this.journal.recordReconciled(
            task,
            key,
            { ...entry, state: 'done', result: found, reconciled: true },
            found,
          );
          // Keep the loaded context in step with what the script wrote.
          if (recorded) context.doneSteps.add(key);
        }
        results.push({ key, found: found !== null && found !== undefined });
      } catch (error) {
        // The next attempt reconciles this write itself before writing (the journal still says intent).
        this.logger.warn(`task ${task.id}: reconciling ${key} failed: ${String(error)}`);
      }
    }
    return results;
  }

  async fail(
    task: TaskRecord,
    reason: StructuredFailure['reason'],
    detail: string,
    lease: Lease,
    anyStatus = false,
    checked?: CheckRun,
  ): Promise<'failed'> {
    const failure = await this.failures.build(task, reason, detail, checked);
    const ended = await this.tasks.transition(task, 'failed', {
      attempt: task.attempt,
      // Only the duration limit overrides whatever the task is doing; otherwise a pause or stop that
      // landed while the report was being built wins.
      ...(anyStatus ? {} : { from: [task.status] }),
      fields: { failure, recoveryOwner: lease.owner, recoveryLeaseExpiresAt: lease.expiresAt },
      eventData: { reason, detail, completedUnits: failure.completedUnits, totalUnits: task.totalUnits },
    });
    await this.signals.publish({ taskId: task.id, action: 'stop' });
    await publishDue(this.turns, ended.due);
    this.logger.warn(`task ${task.id} failed: ${reason} (${detail})`);
    return 'failed';
  }
}
