import type { TaskKind } from '@vigil/kinds';
import type { ActionRecord, SliceContext, TaskRecord } from '@vigil/tasks';
import type { ChatMessage } from '../models/model-provider';
import { byStepKey, clip, findingTitle, summariseKeys } from './step-summary';

const MAX_LISTED_OUTPUTS = 200;
/** The latest saved outputs shown in full in a bounded opening, and how much of each. */
const RECENT_OUTPUTS = 3;
const RECENT_OUTPUT_CHARS = 600;
/** Findings listed by their title in a bounded opening (the newest). */
const LISTED_FINDINGS = 20;
const HUMAN_INPUT_CHARS = 4000;
/** How much of each of the latest actions' arguments and result the opening shows. */
const RECENT_ACTION_ARGS_CHARS = 300;
const RECENT_ACTION_RESULT_CHARS = 600;

/** The latest actions of the log in full (bounded): what was just tried and how it went, errors included. */
function recentActionLines(actions: ActionRecord[] = []): string[] {
  return actions.map((action) => {
    const outcome =
      action.error !== undefined
        ? `error: ${clip(action.error, RECENT_ACTION_RESULT_CHARS)}`
        : `result: ${clipSaying(action.result, RECENT_ACTION_RESULT_CHARS, action.key)}`;
    return `- #${action.step} ${action.tool} ${clip(action.args ?? {}, RECENT_ACTION_ARGS_CHARS)} (attempt ${action.attempt}) → ${outcome}`;
  });
}

/**
 * A result cut to fit the opening says so, and how to read it whole (docs/models.md, "Prompts
 * that stay bounded"): nothing a tool answered is silently lost between slices.
 */
function clipSaying(value: unknown, max: number, key: string | null): string {
  const clipped = clip(value, max);
  if (clipped.length < max || !clipped.endsWith('…')) return clipped;
  const json = JSON.stringify(value) ?? 'null';
  if (json.length <= max) return clipped;
  const how = key
    ? `read_output {"key":${JSON.stringify(key)}} returns it whole`
    : 'the action log keeps it whole';
  return `${clipped} [cut: ${max} of ${json.length} characters; ${how}]`;
}

/**
 * `bounded` (the default): the runtime summarises what is done, so the opening stays the same size
 * as the task grows (docs/models.md, "Prompts that stay bounded"). `unbounded`: the opening
 * as it was before, every completed step and saved output listed, kept for the prompts bench.
 */
export type PromptStyle = 'bounded' | 'unbounded';

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

/**
 * The system prompt and opening message of a slice, built only from what the runtime recorded.
 * `situation`: what the runtime tells the agent of its surroundings (its children's results, tool
 * servers that restarted), placed before the closing instruction.
 */
export function buildPrompt(
  task: TaskRecord,
  kind: TaskKind,
  context: SliceContext,
  criteria: string,
  style: PromptStyle = 'bounded',
  situation = '',
): { system: string; messages: ChatMessage[] } {
  if (style === 'unbounded') return buildUnboundedPrompt(task, kind, context, criteria);
  const system = [
    'You are a careful agent working through a long task in bounded slices. Your progress is recorded',
    'by the runtime, not by you: the summary of completed steps below is authoritative.',
    'Rules: call one tool at a time; never repeat a step listed as completed; if a tool fails, read the',
    'error and try again or take another way; when every step is done and read back, call finish_task.',
    'Completed steps are summarised as ranges ("step:0–step:9 (10)" is step:0, step:1, … step:9). Saved',
    'outputs are listed by key: call read_output with a key to read one in full when you need it; an',
    'older tool result of this slice is shortened to {"ok":true,"saved_as":"<key>"}.',
    'Your claim is verified against the exit criteria before the task counts as complete.',
    `\n## Task: ${task.title}\n${kind.instructions(task.input)}`,
    `\n## Exit criteria\n${criteria}`,
    retrySection(task),
  ].join('\n');

  const done = context.doneSteps;
  const planKeys = planKeysOf(kind, task.input);
  const outputKeys = [...context.outputs.keys()].sort(byStepKey);
  const sameKeys = outputKeys.length === done.size && outputKeys.every((key) => done.has(key));
  const recent = outputKeys
    .slice(-RECENT_OUTPUTS)
    .map((key) => `- ${key}: ${clipSaying(context.outputs.get(key), RECENT_OUTPUT_CHARS, key)}`);
  const findings = context.findings.slice(-LISTED_FINDINGS).map((f) => `- ${findingTitle(f)}`);
  const parts = [
    `Completed steps (${done.size}${task.totalUnits ? ` of ${task.totalUnits}` : ''}): ${summariseKeys(done, planKeys)}.`,
    outputKeys.length
      ? `Saved outputs (${outputKeys.length}): ${sameKeys ? 'one for each completed step' : summariseKeys(outputKeys, planKeys)}. Read one with read_output {"key": "<step key>"}.`
      : '',
    recent.length ? `Latest saved outputs:\n${recent.join('\n')}` : '',
    context.recentActions?.length
      ? `Last actions (from the runtime's log, newest last):\n${recentActionLines(context.recentActions).join('\n')}`
      : '',
    findings.length
      ? `Findings (${context.findings.length}${context.findings.length > LISTED_FINDINGS ? `, the latest ${LISTED_FINDINGS}` : ''}, by title):\n${findings.join('\n')}`
      : '',
    task.humanInput
      ? `The user answered your question "${(task.humanQuestion ?? '').slice(0, HUMAN_INPUT_CHARS)}": ${task.humanInput.slice(0, HUMAN_INPUT_CHARS)}`
      : '',
    situation,
    'Continue with the next step that is not completed. Do not repeat completed work.',
  ].filter(Boolean);
  // The opening is the same for every call of the slice: the end of its cacheable prefix.
  return { system, messages: [{ role: 'user', content: parts.join('\n\n'), cacheBreakpoint: true }] };
}

/** The plan's step keys, which let ranges span ad sets; none when the kind has no plan for the input. */
function planKeysOf(kind: TaskKind, input: unknown): string[] | undefined {
  try {
    return kind.scriptedPlan?.(input).map((step) => step.key);
  } catch {
    return undefined;
  }
}

/** The opening as it was before prompts were bounded: grows with every completed step. */
function buildUnboundedPrompt(
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
