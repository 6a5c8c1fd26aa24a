import type { Action, Artifact, Finding, Task, UserMessage } from '@vigil/client';
import { compact, oneLine, table, usd, when } from './table';

/** How a line is meant to look; the printer paints it only on a colour terminal. */
export type Tone = 'plain' | 'good' | 'bad' | 'warn' | 'dim';

export interface Line {
  text: string;
  tone?: Tone;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** `12/40 (30%)`, or what is known when the total is not. */
export function progressText(completed: number | null | undefined, total: number | null | undefined): string {
  const done = completed ?? 0;
  if (!total) return `${done} done`;
  return `${done}/${total} (${Math.floor((100 * Math.min(done, total)) / total)}%)`;
}

/** A bar of `width` cells for a terminal: `[██████░░░░]`. */
export function progressBar(
  completed: number | null | undefined,
  total: number | null | undefined,
  width = 24,
): string {
  const ratio = total ? Math.min(1, Math.max(0, (completed ?? 0) / total)) : 0;
  const filled = Math.round(ratio * width);
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}]`;
}

/** The status with its reason when it has one: `paused (budget)`. */
export function statusText(task: Pick<Task, 'status' | 'statusReason'>): string {
  return task.statusReason ? `${task.status} (${task.statusReason})` : (task.status ?? 'unknown');
}

/** `tasks ls`: one row per task. */
export function taskRows(tasks: readonly Task[]): string[] {
  if (tasks.length === 0) return ['no tasks'];
  return table([
    ['ID', 'STATUS', 'PROGRESS', 'KIND', 'CREATED', 'TITLE'],
    ...tasks.map((task) => [
      task.id ?? '',
      statusText(task),
      progressText(task.completedUnits, task.totalUnits),
      task.kind ?? '',
      when(task.createdAt),
      oneLine(task.title ?? '', 60),
    ]),
  ]);
}

interface Check {
  check?: string;
  expected?: unknown;
  actual?: unknown;
  passed?: boolean;
  detail?: string;
}

/** The verification table: one row per exit criterion. */
export function checkRows(checks: readonly Check[]): Line[] {
  const rows = table(
    checks.map((check) => [
      check.passed ? 'pass' : 'FAIL',
      check.check ?? '',
      `expected ${compact(check.expected, 40)}`,
      `actual ${compact(check.actual, 40)}`,
      check.detail && !check.passed ? oneLine(check.detail, 80) : '',
    ]),
  );
  return rows.map((text, i) => ({ text: `  ${text}`, tone: checks[i].passed ? 'good' : 'bad' }));
}

/** `tasks get`: the fields a person reads, in the order they matter. */
export function taskDetails(task: Task): string[] {
  const fields: [string, string][] = [
    ['id', task.id ?? ''],
    ['title', task.title ?? ''],
    ['kind', task.kind ?? ''],
    ['status', statusText(task)],
    ['progress', progressText(task.completedUnits, task.totalUnits)],
    ['current step', task.currentStep ?? ''],
    [
      'attempt',
      `${task.attempt ?? 1} (${plural(task.retryCount ?? 0, 'retry', 'retries')}), ${plural(task.sliceCount ?? 0, 'slice')}`,
    ],
    ['model', `${task.model ?? ''}${task.provider ? ` via ${task.provider}` : ''}`],
    ['spent', `${usd(task.spentUsd)} of ${usd(task.budgetUsd)}`],
    ['created', when(task.createdAt)],
    ['finished', when(task.finishedAt)],
    ['waiting on', task.humanQuestion ?? ''],
    ['parent', task.parentId ?? ''],
    ['archived', task.archived ? 'yes' : ''],
  ];
  const lines = table(fields.filter(([, value]) => value !== '').map(([name, value]) => [name, value]));
  const checks = task.verification?.checks ?? [];
  if (checks.length > 0) {
    lines.push(`verification: ${task.verification?.passed ? 'passed' : 'not passed'}`);
    lines.push(...checkRows(checks).map((line) => line.text));
  }
  if (task.result !== undefined && task.result !== null) lines.push(`result: ${compact(task.result, 400)}`);
  if (task.failure) lines.push(...failureLines(task.failure).map((line) => line.text));
  return lines;
}

interface FailureView {
  reason?: string;
  detail?: string;
  nextSteps?: string[];
  unresolvedWrites?: string[];
}

function failureLines(failure: unknown): Line[] {
  const view = failure as FailureView;
  const lines: Line[] = [
    { text: `failure: ${view.reason ?? 'unknown'}: ${oneLine(view.detail ?? '', 300)}`, tone: 'bad' },
  ];
  for (const write of view.unresolvedWrites ?? [])
    lines.push({ text: `  unresolved write: ${write}`, tone: 'warn' });
  for (const step of view.nextSteps ?? []) lines.push({ text: `  next: ${oneLine(step, 200)}` });
  return lines;
}

/** How a watched task ended, for a person: the outcome, the checks, the result or the failure. */
export function outcomeLines(task: Task): Line[] {
  const runs = `${plural(task.attempt ?? 1, 'attempt')}, ${plural(task.sliceCount ?? 0, 'slice')}, ${usd(task.spentUsd)}`;
  const checks = task.verification?.checks ?? [];
  switch (task.status) {
    case 'completed': {
      const lines: Line[] = [
        {
          text: `completed after ${runs}${task.verification?.passed ? ', verified' : ''}`,
          tone: 'good',
        },
        ...checkRows(checks),
      ];
      if (task.result !== undefined && task.result !== null)
        lines.push({ text: `result: ${compact(task.result, 400)}` });
      return lines;
    }
    case 'failed':
      return [
        { text: `failed after ${runs}`, tone: 'bad' },
        ...checkRows(checks),
        ...failureLines(task.failure),
      ];
    case 'cancelled':
      return [{ text: `cancelled after ${runs}`, tone: 'warn' }];
    case 'waiting_on_human':
      return [
        { text: `waiting for a person: ${task.humanQuestion ?? '(no question recorded)'}`, tone: 'warn' },
        { text: `answer with: vigil tasks answer ${task.id} "<your answer>"` },
        ...(task.humanDeadlineAt ? [{ text: `unanswered, it fails at ${when(task.humanDeadlineAt)}` }] : []),
      ];
    default:
      return [{ text: `${statusText(task)}: ${progressText(task.completedUnits, task.totalUnits)}` }];
  }
}

export function actionRows(actions: readonly Action[]): string[] {
  if (actions.length === 0) return ['no actions recorded'];
  return table([
    ['STEP', 'ATTEMPT', 'TOOL', 'MS', 'OUTCOME'],
    ...actions.map((action) => [
      String(action.step ?? ''),
      String(action.attempt ?? ''),
      action.tool ?? '',
      String(action.durationMs ?? ''),
      action.error !== undefined ? `error: ${oneLine(action.error, 80)}` : compact(action.result, 80),
    ]),
  ]);
}

export function messageRows(messages: readonly UserMessage[]): string[] {
  if (messages.length === 0) return ['no messages'];
  return table(
    messages.map((message) => [when(message.sentAt), message.kind ?? '', oneLine(message.text ?? '', 200)]),
  );
}

export function findingRows(findings: readonly Finding[]): string[] {
  if (findings.length === 0) return ['no findings'];
  return findings.map((finding) => {
    const body = typeof finding.body === 'string' && finding.body ? ` — ${oneLine(finding.body, 160)}` : '';
    return `${finding.title ?? '(untitled)'}${body}`;
  });
}

export function artifactRows(artifacts: readonly Artifact[]): string[] {
  if (artifacts.length === 0) return ['no artifacts'];
  return table([
    ['ID', 'STEP', 'TOOL', 'TYPE', 'BYTES', 'NAME'],
    ...artifacts.map((artifact) => [
      artifact.id ?? '',
      String(artifact.step ?? ''),
      artifact.tool ?? '',
      artifact.mimeType ?? '',
      String(artifact.bytes ?? ''),
      artifact.name ?? '',
    ]),
  ]);
}
