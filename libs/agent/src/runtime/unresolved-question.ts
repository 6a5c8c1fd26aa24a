import type { UnresolvedWrite } from '@vigil/tasks';

const ARGS_CHARS = 300;

/**
 * The plain question a person answers when Vigil cannot tell whether a write happened
 * (docs/missions.md, "Writes never repeated"): which tool, with which arguments, and how to
 * answer (`POST /v1/tasks/:id/input {text, resolution}`).
 */
export function unresolvedWriteQuestion(write: UnresolvedWrite): string {
  const json = JSON.stringify(write.args) ?? '{}';
  const args = json.length <= ARGS_CHARS ? json : `${json.slice(0, ARGS_CHARS - 1)}…`;
  return [
    `Vigil cannot tell whether ${write.tool} ${args} happened: the call was made, but its answer never`,
    `came back, and ${write.tool} has no lookup to check. Making it again could do it twice, so Vigil`,
    'waits for you. Did it happen? Answer with resolution "done" (put the id of what it created in',
    'the text, if you know it) or "not_done" to have Vigil make the call again; the task then',
    'continues from this step.',
  ].join(' ');
}
