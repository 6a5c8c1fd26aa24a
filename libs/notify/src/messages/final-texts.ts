import type { StructuredFailure, TaskRecord } from '@vigil/tasks';
import { bounded, describeCheck, listOf, plural, sentence, stepsDone, titleOf } from './wording';

/**
 * The result as verified: the checks that passed against the external system, never the claim alone.
 * A mission's message carries its report (docs/missions.md, "The task report") as its body: the
 * findings, the writes and the verification table the runtime recorded, in place of the summary.
 */
export function completedText(task: TaskRecord, report?: string): string {
  const passed = task.verification?.checks.filter((check) => check.passed) ?? [];
  const opening = `Your task ${titleOf(task)} is complete, and the result was verified.`;
  if (task.kind === 'mission' && report)
    return `${opening} The report below is built from what Vigil recorded (GET /v1/tasks/${task.id}/report).\n\n${report}`;
  const result = task.result as { summary?: unknown } | null;
  const summary = typeof result?.summary === 'string' ? bounded(result.summary, 1_000) : '';
  return [
    opening,
    passed.length > 0
      ? `Checks that passed: ${passed.map(describeCheck).join('; ')}.`
      : 'It had no completion checks to run.',
    summary ? `Summary: ${summary}` : null,
  ]
    .filter(Boolean)
    .join(' ');
}

/** The structured failure the Watcher records (FailureReporter); every field is read defensively. */
type FailureView = Partial<StructuredFailure>;

function failureReason(failure: FailureView): string {
  switch (failure.reason) {
    case 'policy_exhausted':
      return failure.retryHistory?.at(-1)?.reason === 'looping'
        ? 'every retry its retry policy allows failed, the last one because the agent kept repeating itself without making progress'
        : 'every retry its retry policy allows failed';
    case 'limit':
      return `a limit was reached${failure.detail ? ` (${bounded(failure.detail, 200)})` : ''}`;
    case 'failed_verification':
      return 'its result did not pass the completion checks';
    case 'frozen':
    case 'crashed':
      return 'its execution kept stopping unexpectedly';
    case 'hung_call':
      return 'a model or tool call kept hanging past its deadline';
    case 'tool_error':
      return 'its tool calls kept failing';
    case 'looping':
      return 'the agent kept repeating itself without making progress';
    default:
      return 'it could not recover';
  }
}

function verifiedLine(failure: FailureView): string | null {
  const checks = failure.verified?.checks ?? [];
  const unavailable = failure.verified?.unavailable ?? [];
  const passed = checks.filter((check) => check.passed).map(describeCheck);
  const missed = checks.filter((check) => !check.passed).map(describeCheck);
  const parts = [
    passed.length ? `verified: ${passed.join('; ')}` : null,
    missed.length ? `not met: ${missed.join('; ')}` : null,
    unavailable.length ? `could not be checked: ${listOf(unavailable.map((u) => u.check))}` : null,
  ].filter(Boolean);
  return parts.length ? `Checks — ${parts.join('. ')}.` : null;
}

function changesLines(failure: FailureView): string[] {
  const changes = failure.externalChanges?.keys ?? [];
  const unresolved = failure.unresolvedWrites ?? [];
  const duplicates = failure.duplicatesCreated ?? 0;
  return [
    changes.length
      ? `${plural(changes.length, 'change was', 'changes were')} made in external systems and exist: ${listOf(changes)}.`
      : 'No changes were made in external systems.',
    unresolved.length
      ? `${plural(unresolved.length, 'write')} could not be confirmed either way: ${listOf(unresolved)}.`
      : null,
    duplicates === 0
      ? 'No duplicates were created.'
      : `${plural(duplicates, 'duplicate object was', 'duplicate objects were')} created; the checks above name them.`,
  ].filter((line): line is string => line !== null);
}

/** The honest end: what completed and was verified, what exists outside, no duplicates, what next. */
export function failedText(task: TaskRecord): string {
  const failure = (task.failure ?? null) as FailureView | null;
  const title = titleOf(task);
  if (!failure || typeof failure !== 'object') {
    const done = stepsDone(task.completedUnits, task.totalUnits, 'were');
    return [
      `Your task ${title} failed.`,
      done ? sentence(done) : null,
      `No structured failure report is available; GET /v1/tasks/${task.id} and /actions show what happened.`,
    ]
      .filter(Boolean)
      .join(' ');
  }
  const done = stepsDone(failure.completedUnits ?? task.completedUnits, task.totalUnits, 'were');
  const next = failure.nextSteps?.length
    ? failure.nextSteps.join(' ')
    : 'Submit the remaining work as a new task.';
  return [
    `Your task ${title} could not be finished: ${failureReason(failure)}.`,
    done ? sentence(done) : null,
    verifiedLine(failure),
    ...changesLines(failure),
    `What you can do next: ${next}`,
  ]
    .filter(Boolean)
    .join(' ');
}
