import type { TaskRecord } from '@vigil/tasks';
import { humanStep, plural, reasonWords, sentence, stepsDone, titleOf } from './wording';

type ProgressView = Pick<
  TaskRecord,
  | 'id'
  | 'title'
  | 'kind'
  | 'status'
  | 'startedAt'
  | 'currentStep'
  | 'completedUnits'
  | 'totalUnits'
  | 'retryCount'
  | 'retryHistory'
  | 'humanQuestion'
  | 'statusReason'
  | 'children'
>;

function statusLine(task: ProgressView): string {
  const title = titleOf(task);
  switch (task.status) {
    case 'queued':
      if (task.statusReason === 'tenant_max_running')
        return `Your task ${title} is waiting for its turn: your account's other tasks hold all of its running places, and it starts as soon as one of them ends.`;
      if (task.statusReason === 'tenant_fair_share')
        return `Your task ${title} is waiting for its turn: your account's other tasks hold its fair share of the workers while other accounts wait, and it starts in its turn.`;
      return task.startedAt === null
        ? `Your task ${title} is queued and starts as soon as a worker picks it up.`
        : `Your task ${title} is running; its next part is queued and about to start.`;
    case 'waiting_on_tool':
      // A parent waiting on its child missions (docs/missions.md, "Child missions"): counts from its record.
      if (task.statusReason === 'children' && task.children)
        return `Your task ${title} is waiting for its child tasks: ${task.children.done} of ${task.children.total} have ended, ${task.children.running} running.`;
      return `Your task ${title} is running.`;
    case 'running':
      return `Your task ${title} is running.`;
    case 'retrying':
      return `Your task ${title} ran into a problem on its last attempt and is being retried.`;
    case 'verifying':
      return `Your task ${title} has done its steps; the result is now being checked before it counts as complete.`;
    case 'paused':
      return `Your task ${title} is paused; nothing runs until it is resumed.`;
    case 'waiting_on_human':
      return `Your task ${title} is waiting for your answer.`;
    case 'completed':
    case 'failed':
    case 'cancelled':
      return `Your task ${title} has ended (${task.status}).`;
  }
}

const MOVING = new Set<TaskRecord['status']>(['queued', 'running', 'waiting_on_tool']);

function progressLine(task: ProgressView): string | null {
  if (task.startedAt === null) return null;
  const done = stepsDone(task.completedUnits, task.totalUnits);
  if (task.totalUnits !== null && done) return `${done}.`;
  if (!MOVING.has(task.status)) return done ? sentence(done) : null;
  // Without a known total there is no exact progress to show, so none is invented.
  return done
    ? `The task is still running normally; ${done} (its total number of steps is not known in advance).`
    : 'The task is still running normally; it does not report a total number of steps, so no exact progress can be shown.';
}

function retryLine(task: ProgressView): string {
  if (task.retryCount === 0) return 'No retries have been needed.';
  const last = task.retryHistory[task.retryHistory.length - 1];
  return `It has been retried ${plural(task.retryCount, 'time')} so far; the last retry was needed because ${reasonWords(last?.reason)}.`;
}

function userLine(task: ProgressView): string {
  if (task.status === 'waiting_on_human') {
    return `It needs your answer to: ${task.humanQuestion ?? '(no question text)'} — answer with POST /v1/tasks/${task.id}/input.`;
  }
  if (task.status === 'paused') return `To continue it, resume it with POST /v1/tasks/${task.id}/resume.`;
  return 'Nothing is needed from you right now.';
}

/**
 * The periodic reassurance, worded only from the task record: where it is, what is exactly known
 * about its progress, whether a retry happened, and whether the user has to do anything.
 */
export function progressText(task: ProgressView): string {
  const lines = [statusLine(task)];
  if (task.currentStep && task.startedAt !== null && MOVING.has(task.status))
    lines.push(`Current step: ${humanStep(task.currentStep)}.`);
  const progress = progressLine(task);
  if (progress) lines.push(progress);
  lines.push(retryLine(task), userLine(task));
  return lines.join(' ');
}
