import { Injectable, Logger } from '@nestjs/common';
import { TaskContextStore, type StructuredFailure, type TaskRecord } from '@vigil/tasks';
import { CheckRun, ExitCheckRunner } from './exit-check.runner';

/** The honest end of a task that could not finish: what was done, what exists, what to do next. */
@Injectable()
export class FailureReporter {
  private readonly logger = new Logger(FailureReporter.name);

  constructor(
    private readonly contexts: TaskContextStore,
    private readonly checks: ExitCheckRunner,
  ) {}

  /** `checked`: a check run made moments ago (a failed verification), so the API is not read twice. */
  async build(
    task: TaskRecord,
    reason: StructuredFailure['reason'],
    detail: string,
    checked?: CheckRun,
  ): Promise<StructuredFailure> {
    const context = await this.contexts.load(task.id);
    const journal = [...context.journal.entries()];
    let verified: StructuredFailure['verified'];
    try {
      const run = checked ?? (await this.checks.run(task, AbortSignal.timeout(30_000)));
      verified = { checks: run.checks, unavailable: run.unavailable };
    } catch (error) {
      this.logger.warn(`final checks of ${task.id} failed to run: ${String(error)}`);
      verified = { checks: [], unavailable: [{ check: '*', reason: String(error) }] };
    }
    const duplicates = verified.checks
      .map((check) => (check.actual as { duplicates?: number } | null)?.duplicates ?? 0)
      .reduce((sum, n) => sum + n, 0);
    const nextSteps = [
      reason === 'limit'
        ? `Submit the remaining work as a new task with a larger limit (${detail}).`
        : 'Submit the remaining work as a new task, possibly with another retry policy.',
    ];
    if (journal.length > 0) {
      nextSteps.push(
        'The objects in externalChanges exist and were verified as listed; clean them up if the work is no longer wanted.',
      );
    }
    return {
      reason,
      detail,
      completedUnits: context.doneSteps.size,
      totalUnits: task.totalUnits,
      verified,
      externalChanges: summarizeWrites(
        journal.filter(([, entry]) => entry.state === 'done').map(([key]) => key),
      ),
      unresolvedWrites: journal.filter(([, entry]) => entry.state === 'intent').map(([key]) => key),
      duplicatesCreated: duplicates,
      retryHistory: task.retryHistory,
      nextSteps,
    };
  }
}

function summarizeWrites(keys: string[]): StructuredFailure['externalChanges'] {
  const counts: Record<string, number> = {};
  for (const key of keys) {
    const kind = key.split(':')[0];
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return { counts, keys: keys.sort() };
}
