import type { TaskKind } from '@vigil/kinds';
import type { SliceContext, TaskRecord } from '@vigil/tasks';
import type { ChatMessage } from '../models/model-provider';

const MAX_LISTED_OUTPUTS = 200;

const stepKeys = new Intl.Collator('en', { numeric: true });
const byStepKey = (a: string, b: string): number => stepKeys.compare(a, b);

function retrySection(task: TaskRecord): string {
  const retry = task.retryContext;
  if (!retry) return '';
  const lines = [
    `This is retry ${retry.retryNumber}. The previous attempt ended with: ${retry.reason}${retry.detail ? ` (${retry.detail})` : ''}.`,
    'Resume from the last verified step. Do not repeat completed writes: the runtime refuses duplicates anyway.',
  ];
  for (const check of retry.failedChecks ?? []) {
    lines.push(
      `Verification failed: ${check.check} expected ${JSON.stringify(check.expected)}, found ${JSON.stringify(check.actual)}${check.detail ? ` — ${check.detail}` : ''}.`,
    );
  }
  return `\n\n## Retry context\n${lines.join('\n')}`;
}

/** The system prompt and opening message of a slice, built only from what the runtime recorded. */
export function buildPrompt(
  task: TaskRecord,
  kind: TaskKind,
  context: SliceContext,
  criteria: string,
): { system: string; messages: ChatMessage[] } {
  const system = [
    'You are a careful agent working through a long task in bounded slices. Your progress is recorded',
    'by the runtime, not by you: the list of completed steps below is authoritative.',
    'Rules: call one tool at a time; never repeat a step listed as completed; if a tool fails, read the',
    'error and try again or take another way; when every step is done and read back, call finish_task.',
    'Your claim is verified against the exit criteria before the task counts as complete.',
    `\n## Task: ${task.title}\n${kind.instructions(task.input)}`,
    `\n## Exit criteria\n${criteria}`,
    retrySection(task),
  ].join('\n');

  // Sorted (step:2 before step:10): the prompt must not depend on whether the context was held
  // or read from Redis, where hashes and sets come back in no particular order.
  const done = [...context.doneSteps].sort(byStepKey);
  const saved = [...context.outputs.entries()].sort(([a], [b]) => byStepKey(a, b));
  const outputs = saved
    .slice(0, MAX_LISTED_OUTPUTS)
    .map(([key, value]) => `- ${key}: ${JSON.stringify(value).slice(0, 200)}`);
  if (saved.length > MAX_LISTED_OUTPUTS)
    outputs.push(`- (${saved.length - MAX_LISTED_OUTPUTS} more not listed)`);
  const parts = [
    `Completed steps (${done.length}${task.totalUnits ? ` of ${task.totalUnits}` : ''}): ${done.length ? done.join(', ') : 'none yet'}.`,
    outputs.length ? `Saved outputs:\n${outputs.join('\n')}` : '',
    context.findings.length
      ? `Findings so far:\n${context.findings.map((f) => `- ${JSON.stringify(f)}`).join('\n')}`
      : '',
    task.humanInput
      ? `The user answered your question "${task.humanQuestion ?? ''}": ${task.humanInput}`
      : '',
    'Continue with the next step that is not completed. Do not repeat completed work.',
  ].filter(Boolean);
  return { system, messages: [{ role: 'user', content: parts.join('\n\n') }] };
}
