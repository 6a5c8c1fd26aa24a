import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { LIMITS_CONFIG, MODELS_CONFIG, type LimitsConfig, type ModelsConfig } from '@vigil/config';
import { KindBinder, type BoundKind, type KindTool } from '@vigil/kinds';
import {
  RetryContext,
  StructuredFailure,
  TaskContext,
  TaskContextStore,
  TaskLifecycle,
  TaskRecord,
  WriteJournal,
} from '@vigil/tasks';
import { GEN_AI, NOOP_TRACING, TRACING, VIGIL, type Tracing } from '@vigil/telemetry';
import { decisionSpan } from './decision-spans';
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
    private readonly lifecycle: TaskLifecycle,
    private readonly contexts: TaskContextStore,
    private readonly kinds: KindBinder,
    private readonly journal: WriteJournal,
    private readonly failures: FailureReporter,
    @Inject(LIMITS_CONFIG) private readonly limits: Pick<LimitsConfig, 'taskMaxSlices'>,
    @Inject(MODELS_CONFIG) private readonly models: Pick<ModelsConfig, 'retryPolicy'>,
    @Optional() @Inject(TRACING) private readonly tracing: Tracing = NOOP_TRACING,
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
    if (end) return this.giveUp(task, end.reason, end.detail, lease, checked);
    const context = await this.contexts.load(task.id);
    const retryContext = this.retryContextOf(task, context, await this.reconcileJournal(task, context));
    const model = this.nextModel(task);
    await this.lifecycle.requeueForRetry(task, { model, retryContext, lease });
    this.traceAttempt(task, model, retryContext);
    this.logger.log(
      `task ${task.id}: retry ${retryContext.retryNumber} on ${model} published (attempt ${task.attempt})`,
    );
    return 'published';
  }

  /**
   * The new attempt's span (its id derived from the task and attempt, as every process derives
   * it): a sibling of the attempt it replaces under the task's root, with the reason it was made
   * (docs/observability.md, "One trace per task").
   */
  private traceAttempt(task: TaskRecord, model: string, retry: RetryContext): void {
    if (!this.tracing.enabled) return;
    this.tracing
      .startAttempt(task.id, task.attempt, {
        attributes: {
          [VIGIL.taskId]: task.id,
          [VIGIL.kind]: task.kind,
          [VIGIL.attempt]: task.attempt,
          [VIGIL.attemptReason]: retry.reason,
          [VIGIL.attemptDetail]: retry.detail,
          [VIGIL.model]: model,
          'vigil.retry.number': retry.retryNumber,
          'vigil.retry.last_verified_step': retry.lastVerifiedStep,
        },
      })
      .end();
  }

  /** The bound that ends this task instead of a retry, if one is reached (docs/ARCHITECTURE.md, invariant 7). */
  private boundReached(
    task: TaskRecord,
  ): { reason: StructuredFailure['reason']; detail: string } | undefined {
    const policy = this.policyOf(task);
    const last = task.retryHistory[task.retryHistory.length - 1];
    if (last?.reason === 'limit') return { reason: 'limit', detail: last.detail ?? 'a limit was reached' };
    if (task.retryCount >= policy.length) {
      // The last attempt's own end is named too: "looping: notes__list_notes was called 5 times…".
      const lastEnd = last
        ? `; the last attempt ended ${last.reason}${last.detail ? `: ${last.detail.slice(0, 300)}` : ''}`
        : '';
      return {
        reason: 'policy_exhausted',
        detail: `all ${policy.length} retries of the policy failed${lastEnd}`,
      };
    }
    if (task.sliceCount >= this.limits.taskMaxSlices)
      return { reason: 'limit', detail: `TASK_MAX_SLICES (${this.limits.taskMaxSlices}) reached` };
    return undefined;
  }

  private policyOf(task: TaskRecord): string[] {
    return task.agent.policy ?? this.models.retryPolicy;
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
      // The lookup is a call out of the task: a span of the attempt that left the write unknown.
      const span = decisionSpan(this.tracing, { id: task.id, attempt: entry.attempt }, 'reconcile', {
        [VIGIL.stepKey]: key,
        [GEN_AI.toolName]: tool.name,
      });
      const traceparent = span.traceparent();
      try {
        const found = await tool.reconcile(entry.args, {
          taskId: task.id,
          attempt: task.attempt,
          input: task.input,
          outputs: context.outputs,
          signal: AbortSignal.timeout(30_000),
          services: bound.services,
          ...(traceparent ? { traceparent } : {}),
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
        span.set({ 'vigil.reconcile.found': found !== null && found !== undefined });
        results.push({ key, found: found !== null && found !== undefined });
      } catch (error) {
        span.fail(error, 'lookup_failed');
        // The next attempt reconciles this write itself before writing (the journal still says intent).
        this.logger.warn(`task ${task.id}: reconciling ${key} failed: ${String(error)}`);
      } finally {
        span.end();
      }
    }
    return results;
  }

  /** A clock ran out (docs/ARCHITECTURE.md, invariant 7): the task ends with its report. */
  async failForLimit(
    task: TaskRecord,
    detail: string,
    lease: Lease,
    clock: 'active_time' | 'human_wait',
  ): Promise<'failed'> {
    const failure = await this.failures.build(task, 'limit', detail);
    await this.lifecycle.failForLimit(task, { failure, lease, clock });
    this.logger.warn(`task ${task.id} failed: limit (${detail})`);
    return 'failed';
  }

  private async giveUp(
    task: TaskRecord,
    reason: StructuredFailure['reason'],
    detail: string,
    lease: Lease,
    checked?: CheckRun,
  ): Promise<'failed'> {
    const failure = await this.failures.build(task, reason, detail, checked);
    // Under the attempt that failed last (a retrying task's attempt number is already the next one's).
    const last = { id: task.id, attempt: task.retryHistory.at(-1)?.attempt ?? task.attempt };
    decisionSpan(this.tracing, last, 'give_up', {
      'vigil.failure.reason': reason,
      'vigil.failure.detail': detail,
    }).end();
    await this.lifecycle.giveUp(task, { failure, lease });
    this.logger.warn(`task ${task.id} failed: ${reason} (${detail})`);
    return 'failed';
  }
}
