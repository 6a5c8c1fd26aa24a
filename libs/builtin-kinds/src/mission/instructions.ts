import type { MissionInput } from './mission.input';

const CONTEXT_CHARS = 20_000;

/** The mission's task section of the system prompt: the goal, its context, its tools, how to report. */
export function missionInstructions(input: MissionInput): string {
  const context =
    input.context === undefined
      ? ''
      : typeof input.context === 'string'
        ? input.context
        : JSON.stringify(input.context, null, 2);
  return [
    `Goal: ${input.goal}`,
    context ? `\nContext:\n${context.slice(0, CONTEXT_CHARS)}` : '',
    `\nTools: ${input.tools.join(', ')} (models see a server's tool as <server>__<tool>). A write is`,
    'journalled by the runtime and never repeated once done; read tools change nothing.',
    'Save each result as soon as you have it with record_finding {title, body, data?}: a short title,',
    'the finding in words, optional structured data. The report is built from your findings, the',
    'action log and the verification, not from your summary.',
    input.evidence === 'findings_only'
      ? 'The findings are the only evidence of this mission: record each one carefully.'
      : 'When the goal is met, call finish_task {summary}: the exit criteria are then checked against the external systems.',
  ]
    .filter(Boolean)
    .join('\n');
}

/** A title from the goal's first line. */
export function missionTitle(input: MissionInput): string {
  const line = input.goal.trim().split('\n', 1)[0];
  return line.length <= 120 ? line : `${line.slice(0, 119)}…`;
}
