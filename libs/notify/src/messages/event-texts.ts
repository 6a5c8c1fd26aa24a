import type {
  CancelledData,
  PausedData,
  ResumedData,
  SteeredData,
  TaskEventDataMap,
  TaskRecord,
} from '@vigil/tasks';
import { bounded, sentence, stepsDone, titleOf } from './wording';

const numberOr = (value: unknown, fallback: number | null): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : fallback;

const byUser = (data: { by?: string }): string => (data.by === 'user' ? ' at your request' : '');

/**
 * The honest recovery notice: what stopped, that the work resumed from the last completed step, and
 * how far it was. The event's `detail` is deliberately not quoted: it may carry error text or a model
 * name, and neither helps the user.
 */
export function recoveryText(task: TaskRecord, data: Partial<TaskEventDataMap['task.recovered']>): string {
  const title = titleOf(task);
  const opening =
    data.reason === 'failed_verification'
      ? `The result of your task ${title} did not pass its completion checks yet, so the work resumed from the last verified step to finish it.`
      : data.reason === 'tool_error'
        ? `The previous attempt at your task ${title} ran into repeated errors, so the work resumed from the last completed step.`
        : data.reason === 'looping'
          ? `The previous attempt at your task ${title} kept repeating itself without making progress, so the work resumed from the last completed step.`
          : `The original execution of your task ${title} stopped unexpectedly, so the work resumed from the last completed step.`;
  const done = stepsDone(numberOr(data.completedUnits, task.completedUnits), task.totalUnits, 'were');
  const kept = done ? sentence(`${done}; completed steps are not repeated`) : null;
  const retry = numberOr(data.retryNumber, task.retryCount);
  const allowed = task.agent.policy?.length;
  const which = retry ? `This is retry ${retry}${allowed ? ` of at most ${allowed}` : ''}.` : null;
  return [opening, kept, which, 'Nothing is needed from you.'].filter(Boolean).join(' ');
}

/** A `message_user` call: the agent's own words, bounded in length. */
export function agentText(data: Partial<TaskEventDataMap['task.message']>): string | null {
  if (data.kind !== 'agent' || typeof data.text !== 'string') return null;
  const text = bounded(data.text);
  return text.length > 0 ? text : null;
}

export function humanInputText(
  task: TaskRecord,
  data: Partial<TaskEventDataMap['task.waiting_on_human']>,
  answerUrl?: string,
): string {
  const asked =
    typeof data.question === 'string' && data.question.trim() ? data.question : task.humanQuestion;
  const question = bounded(asked ?? '') || '(the task did not say what it needs)';
  return [
    `Your task ${titleOf(task)} needs your input before it can continue: ${question}`,
    ...(answerUrl
      ? [`Answer here: ${answerUrl} (the page works from any device, until it is answered).`]
      : []),
    `${answerUrl ? 'Or send' : 'To answer, send'} POST /v1/tasks/${task.id}/input with a JSON body {"text": "<your answer>"}.`,
    'The task waits until you answer.',
  ].join(' ');
}

export function pausedText(task: TaskRecord, data: Partial<PausedData>): string {
  if (data.reason === 'budget') {
    return `Your task ${titleOf(task)} is paused: its budget of $${task.budgetUsd} is nearly spent ($${task.spentUsd.toFixed(2)} used), and the next step could cost more than what is left. Nothing was lost. To continue from this step, resume it with a higher budget (POST /v1/tasks/${task.id}/resume with {"budgetUsd": …}).`;
  }
  if (data.reason === 'tenant_daily_budget') {
    return `Your task ${titleOf(task)} is paused: your account's spending limit for today (UTC) has been reached, so no further model calls can be paid for today. Nothing was lost. Resume it (POST /v1/tasks/${task.id}/resume) tomorrow, or once the operator raises the limit.`;
  }
  if (data.reason === 'global_spend_limit') {
    return `Your task ${titleOf(task)} is paused: the spending limit shared by all tasks has been reached, so no further model calls can be paid for right now. Nothing was lost; it can be resumed (POST /v1/tasks/${task.id}/resume) once the operator raises the limit.`;
  }
  if (data.reason === 'kind_version_unavailable') {
    return `Your task ${titleOf(task)} is waiting: no running Worker can continue a ${task.kind} task of version ${task.kindVersion}, the version it was started with. Nothing was lost; it continues by itself once a Worker that runs that version starts.`;
  }
  return `Your task ${titleOf(task)} was paused${byUser(data)}. Nothing runs until it is resumed (POST /v1/tasks/${task.id}/resume); completed steps are kept.`;
}

export function resumedText(task: TaskRecord, data: ResumedData): string {
  if (data.by === 'worker')
    return `A Worker that runs version ${task.kindVersion} of ${task.kind} has started: your task ${titleOf(task)} continues from its last completed step.`;
  return data.input === true
    ? `Your answer was received, and your task ${titleOf(task)} continues.`
    : `Your task ${titleOf(task)} was resumed${byUser(data)} and continues from its last completed step.`;
}

/**
 * An instruction given while the task runs (docs/api.md, "Steering"): quoted, and when it applies —
 * at the agent's next model call, or when a paused or waiting task resumes.
 */
export function steeredText(task: TaskRecord, data: Partial<SteeredData>, status: string): string {
  const when =
    status === 'paused' || status === 'waiting_on_human'
      ? 'It applies when the task resumes.'
      : 'The agent reads it at its next model call, and every slice and retry after that.';
  return `Your task ${titleOf(task)} took a new instruction: "${bounded(String(data.text ?? ''), 500)}". ${when}`;
}

/** The final message of a stopped task: what was done, and that external changes stay. */
export function stoppedText(task: TaskRecord, data: CancelledData): string {
  const done = stepsDone(task.completedUnits, task.totalUnits, 'were');
  return [
    `Your task ${titleOf(task)} was stopped${byUser(data)}; nothing more will run.`,
    done ? sentence(`${done} before the stop`) : null,
    `Changes already made in external systems stay as they are; GET /v1/tasks/${task.id}/actions lists every action taken.`,
  ]
    .filter(Boolean)
    .join(' ');
}
