import { Inject, Injectable, Logger } from '@nestjs/common';
import { TaskContext, TaskContextStore } from '@vigil/agent';
import { VIGIL_CONFIG, VigilConfig } from '@vigil/config';
import { KindRegistry } from '@vigil/kinds';
import { TurnQueue } from '@vigil/queue';
import { ControlSignals, RetryContext, StructuredFailure, TaskRecord, TaskRepository } from '@vigil/tasks';
import type { CheckRun } from './exit-check.runner';
import { FailureReporter } from './failure-report';
import type { Lease } from './lease.service';
import { SupervisorScripts } from './supervisor-scripts';

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
    private readonly kinds: KindRegistry,
    private readonly turns: TurnQueue,
    private readonly scripts: SupervisorScripts,
    private readonly failures: FailureReporter,
    private readonly signals: ControlSignals,
    @Inject(VIGIL_CONFIG) private readonly config: VigilConfig,
  ) {}

  /** `checked`: the check run of a verification that just failed, for a failure report. */
  async publish(task: TaskRecord, lease: Lease, checked?: CheckRun): Promise<'published' | 'failed'> {
    const policy = task.agent.policy ?? this.config.retryPolicy;
    const last = task.retryHistory[task.retryHistory.length - 1];
    const retryNumber = task.retryCount;
    if (last?.reason === 'limit')
      return this.fail(task, 'limit', last.detail ?? 'a limit was reached', lease, false, checked);
    if (retryNumber > policy.length) {
      return this.fail(
        task,
        'policy_exhausted',
        `all ${policy.length} retries of the policy failed`,
        lease,
        false,
        checked,
      );
    }
    if (task.sliceCount >= this.config.taskMaxSlices) {
      return this.fail(
        task,
        'limit',
        `TASK_MAX_SLICES (${this.config.taskMaxSlices}) reached`,
        lease,
        false,
        checked,
      );
    }
    if (task.budgetUsd > 0 && task.spentUsd >= task.budgetUsd) {
      return this.fail(task, 'limit', `task budget of $${task.budgetUsd} reached`, lease, false, checked);
    }

    const context = await this.contexts.load(task.id);
    const reconciled = await this.reconcileJournal(task, context);
    const retryContext: RetryContext = {
      retryNumber,
      reason: last?.reason ?? 'crashed',
      ...(last?.detail ? { detail: last.detail } : {}),
      lastVerifiedStep: context.doneSteps.size,
      ...(last?.reason === 'failed_verification' && task.verification
        ? { failedChecks: task.verification.checks.filter((check) => !check.passed) }
        : {}),
      reconciled,
    };
    // Attempt 1 ran on policy[0]; retry k runs on policy[k mod n], so consecutive attempts alternate
    // as the policy does, and there are exactly n retries.
    const model = policy[retryNumber % policy.length];
    await this.tasks.transition(task, 'queued', {
      attempt: task.attempt,
      from: ['retrying'],
      fields: {
        model,
        retryContext,
        consecutiveErrors: 0,
        lastVerifiedStep: context.doneSteps.size,
        recoveryOwner: lease.owner,
        recoveryLeaseExpiresAt: lease.expiresAt,
      },
      eventType: 'task.recovered',
      eventData: { retryNumber, reason: retryContext.reason, completedUnits: context.doneSteps.size },
    });
    await this.turns.publish({
      taskId: task.id,
      attempt: task.attempt,
      slice: task.sliceCount + 1,
      reason: 'recovery',
    });
    this.logger.log(`task ${task.id}: retry ${retryNumber} on ${model} published (attempt ${task.attempt})`);
    return 'published';
  }

  /** Every write whose outcome is unknown is looked up in the external system before any retry. */
  private async reconcileJournal(
    task: TaskRecord,
    context: TaskContext,
  ): Promise<{ key: string; found: boolean }[]> {
    const kind = this.kinds.get(task.kind);
    const results: { key: string; found: boolean }[] = [];
    for (const [key, entry] of context.journal) {
      if (entry.state !== 'intent' || !entry.args) continue;
      const tool = kind.tools.find((candidate) => {
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
          services: { config: this.config },
        });
        if (found !== null && found !== undefined) {
          const recorded = await this.scripts.recordReconciled(
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
    await this.tasks.transition(task, 'failed', {
      attempt: task.attempt,
      // Only the duration limit overrides whatever the task is doing; otherwise a pause or stop that
      // landed while the report was being built wins.
      ...(anyStatus ? {} : { from: [task.status] }),
      fields: { failure, recoveryOwner: lease.owner, recoveryLeaseExpiresAt: lease.expiresAt },
      eventData: { reason, detail, completedUnits: failure.completedUnits, totalUnits: task.totalUnits },
    });
    await this.signals.publish({ taskId: task.id, action: 'stop' });
    this.logger.warn(`task ${task.id} failed: ${reason} (${detail})`);
    return 'failed';
  }
}
