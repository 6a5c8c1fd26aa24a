import type { TaskRecord } from '@vigil/tasks';
import { NOOP_SPAN, VIGIL, type SpanAttributes, type TraceSpan, type Tracing } from '@vigil/telemetry';
import type { CheckRun } from './exit-check.runner';

/**
 * The Watcher's decisions in the task's trace (docs/observability.md, "Spans and attributes"):
 * each one that acts is a span under the attempt it judged — a recovery with its named reason, a
 * verification with every criterion's result, a clock run out, an abort asked for.
 */
export function decisionSpan(
  tracing: Tracing,
  task: Pick<TaskRecord, 'id' | 'attempt'>,
  decision: string,
  attributes: SpanAttributes,
): TraceSpan {
  if (!tracing.enabled) return NOOP_SPAN;
  return tracing.start(
    `vigil.watcher.${decision}`,
    { taskId: task.id, attempt: task.attempt },
    {
      attributes: {
        [VIGIL.taskId]: task.id,
        [VIGIL.attempt]: task.attempt,
        [VIGIL.decision]: decision,
        ...attributes,
      },
    },
  );
}

/** What a failed criterion lacked, in the check's own words. */
function missingOf(check: CheckRun['checks'][number]): string {
  return `${check.check}: ${check.detail ?? 'not met'}`;
}

/**
 * One event per criterion (its name, result and the check's words; expected and actual values
 * only with content capture, as they may quote an external system), the missing items listed,
 * and the span failed when the claim of done was false. Ends the span.
 */
export function traceVerification(tracing: Tracing, span: TraceSpan, run: CheckRun): void {
  if (!span.recording) return;
  for (const check of run.checks)
    span.event('vigil.check', {
      [VIGIL.check]: check.check,
      [VIGIL.checkPassed]: check.passed,
      [VIGIL.checkDetail]: check.detail,
      [VIGIL.checkExpected]: tracing.content(check.expected),
      [VIGIL.checkActual]: tracing.content(check.actual),
    });
  for (const unavailable of run.unavailable)
    span.event('vigil.check_unavailable', {
      [VIGIL.check]: unavailable.check,
      'vigil.check.reason': unavailable.reason,
    });
  const missing = run.checks.filter((check) => !check.passed).map(missingOf);
  span.set({
    [VIGIL.verificationPassed]: run.passed,
    [VIGIL.verificationMissing]: missing.length > 0 ? missing : undefined,
    'vigil.verification.pending': run.unavailable.length > 0 ? true : undefined,
  });
  if (!run.passed && run.unavailable.length === 0)
    span.fail(`the claim of done failed verification: ${missing.join('; ')}`, 'failed_verification');
  span.end();
}
