import type { Finding, TaskRecord } from '@vigil/tasks';

/** Replies about tasks, worded only from what the record holds (never a model's guess). */

const words = (status: string): string => status.replace(/_/g, ' ');
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export function statusReply(task: TaskRecord): string {
  const units =
    task.totalUnits !== null && task.totalUnits !== undefined
      ? `${task.completedUnits ?? 0} of ${task.totalUnits} steps done`
      : `${task.completedUnits ?? 0} steps done`;
  const why = task.statusReason ? ` (${words(task.statusReason)})` : '';
  const now = task.currentStep && !TERMINAL.has(task.status) ? `, last step: ${task.currentStep}` : '';
  const question =
    task.status === 'waiting_on_human' && task.humanQuestion ? ` It asks you: "${task.humanQuestion}"` : '';
  return (
    `"${task.title}" (${task.id}) is ${words(task.status)}${why}: ${units}${now}, attempt ${task.attempt}, ` +
    `$${task.spentUsd.toFixed(2)} of $${task.budgetUsd.toFixed(2)} spent.${task.archived ? ' It is archived.' : ''}${question}`
  );
}

export function listReply(tasks: TaskRecord[]): string {
  if (tasks.length === 0) return 'This conversation has started no tasks yet.';
  return [
    `This conversation's tasks (${tasks.length}):`,
    ...tasks.map(
      (task) => `- ${task.id} "${task.title}": ${words(task.status)}${task.archived ? ', archived' : ''}`,
    ),
  ].join('\n');
}

/** How many recent tasks "my tasks" names when none is unfinished. */
export const RECENT_TASKS = 5;

/**
 * "How are my tasks going?": the conversation's unfinished tasks, each with its status line, else
 * its most recent ones (docs/conversations.md, "Questions about my tasks").
 */
export function myTasksReply(tasks: TaskRecord[]): string {
  if (tasks.length === 0) return 'This conversation has started no tasks yet.';
  const unfinished = tasks.filter((task) => !TERMINAL.has(task.status));
  const shown = unfinished.length > 0 ? unfinished : tasks.slice(-RECENT_TASKS);
  const heading =
    unfinished.length > 0
      ? `${unfinished.length} of this conversation's tasks ${unfinished.length === 1 ? 'is' : 'are'} not finished:`
      : `None of this conversation's tasks is running; the latest ${shown.length === 1 ? 'one' : shown.length}:`;
  return [heading, ...shown.map((task) => `- ${statusReply(task)}`)].join('\n');
}

export function findingsReply(task: TaskRecord, findings: Finding[]): string {
  if (findings.length === 0) return `"${task.title}" (${task.id}) has recorded no findings yet.`;
  return [
    `"${task.title}" (${task.id}) has ${findings.length} finding${findings.length === 1 ? '' : 's'}:`,
    ...findings.slice(-20).map((finding) => `- ${finding.title}`),
    ...(findings.length > 20 ? [`(the last 20; all at GET /v1/tasks/${task.id}/findings)`] : []),
  ].join('\n');
}

export const OFFLINE_ANSWER =
  'No model is configured to answer questions here (set ROUTER_MODEL with ANTHROPIC_API_KEY or GEMINI_API_KEY). ' +
  'What I can do: run many-step work as a mission in the background (describe it: "Research … and write a report"), ' +
  "tell you how it is going, list this conversation's tasks, show a task's findings or report, and stop, pause or resume the active mission.";

export function noDefaultsReply(tenantId: string): string {
  return (
    `I cannot start a mission from a message: the tool catalog has no conversationDefaults for tenant ${tenantId} ` +
    `(tenants.${tenantId}.conversationDefaults in VIGIL_TOOLS). Send the work as a task ({"task": {kind, input, …}}), or ask your operator to set them.`
  );
}
