import type { CheckResult, FailureReason, TaskRecord } from '@vigil/tasks';

/** Small phrases shared by every message text; none of them ever invents a number. */

export function titleOf(task: Pick<TaskRecord, 'title' | 'kind'>): string {
  return `"${task.title || task.kind}"`;
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/**
 * "N of M steps are complete" when both are known; "N steps are complete so far" when only the
 * count is; null when nothing exact is known. Never a percentage: M is the task's own total.
 */
export function stepsDone(
  completed: number | null,
  total: number | null,
  tense: 'are' | 'were' = 'are',
): string | null {
  if (completed === null) return null;
  if (total !== null) return `${completed} of ${total} steps ${tense} complete`;
  return `${plural(completed, 'step')} ${completed === 1 ? (tense === 'are' ? 'is' : 'was') : tense} complete so far`;
}

/** `noop_step step:3` (tool and logical step, as the runtime records it) → `noop step (step:3)`. */
export function humanStep(currentStep: string): string {
  const [tool, ...rest] = currentStep.trim().split(/\s+/);
  const name = tool.replace(/_/g, ' ');
  return rest.length > 0 ? `${name} (${rest.join(' ')})` : name;
}

/** Why an attempt failed, in words that name no model and quote no error. */
export function reasonWords(reason: FailureReason | string | undefined): string {
  switch (reason) {
    case 'frozen':
      return 'the worker running it stopped responding';
    case 'hung_call':
      return 'a model or tool call did not answer in time';
    case 'crashed':
      return 'the worker running it stopped unexpectedly';
    case 'tool_error':
      return 'its tool calls kept failing';
    case 'looping':
      return 'the agent kept repeating itself without making progress';
    case 'failed_verification':
      return 'its result did not pass the completion checks';
    case 'limit':
      return 'a limit was reached';
    default:
      return 'the attempt stopped unexpectedly';
  }
}

function shortValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

export function describeCheck(check: CheckResult): string {
  const what = check.detail ?? `expected ${shortValue(check.expected)}, found ${shortValue(check.actual)}`;
  return `${check.check} (${what})`;
}

export function listOf(items: string[], max = 10): string {
  if (items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/** `3 of 5 steps were complete` → `3 of 5 steps were complete.` as a sentence of its own. */
export function sentence(text: string): string {
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

/** Agent-written or question text, bounded so one message never floods a channel. */
export function bounded(text: string, max = 4_000): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed;
}
