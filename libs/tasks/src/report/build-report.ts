import { summariseWrites } from './external-writes';
import { clip, codeBlock, paragraph, shortJson } from './markdown';
import { readFinding } from '../history/finding';
import type { ReportInputs } from './report-inputs';
import {
  artifactUrl,
  claimSection,
  findingsSection,
  REPORT_LIMITS,
  retriesSection,
  spendSection,
  statusSection,
  verificationSection,
  writesSection,
} from './report-sections';
import { steeringSection } from './steering-section';

/** The most characters a report may have: a bound on what the route and a message carry. */
export const MAX_REPORT_CHARS = 48_000;

const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};

function goalSection(input: unknown): string {
  const goal = asRecord(input).goal;
  if (typeof goal === 'string' && goal.trim()) return paragraph(goal, REPORT_LIMITS.goalChars);
  // Kinds without a goal in words: their input is what was asked.
  return `The task’s input:\n\n${codeBlock(shortJson(input, 600), 'json')}`;
}

/**
 * A task's report in Markdown (docs/missions.md, "The task report"), built only from what the
 * runtime recorded: the record (status, verification, retries, spend), the findings, the action
 * log and the write journal. The agent's summary appears only as a quoted, labelled claim. Pure
 * and bounded: every part has its own limit and the whole is cut at MAX_REPORT_CHARS.
 */
export function buildTaskReport({
  task,
  findings,
  actions,
  journal,
  publicBaseUrl,
  steering,
}: ReportInputs): string {
  const findingsOnly = asRecord(task.input).evidence === 'findings_only';
  const sections: [string, string | null][] = [
    ['Goal', goalSection(task.input)],
    ['Status', statusSection(task)],
    ['Instructions given while it ran', steeringSection(steering)],
    ['Verification', verificationSection(task, findingsOnly)],
    [
      `Findings (${findings.length})`,
      findingsSection(findings.map(readFinding), (id) => artifactUrl(publicBaseUrl, task.id, id)),
    ],
    ['External writes', writesSection(summariseWrites(actions, journal))],
    ['Retries', retriesSection(task.retryHistory)],
    ['Spend', spendSection(task, actions.length)],
    ['What the agent said', claimSection(task)],
  ];
  const text = [
    `# ${clip(task.title || task.kind, 200).replace(/\r?\n/g, ' ')}`,
    `Task \`${task.id}\` · kind \`${task.kind}\` · this report is built by Vigil from the task’s record, not written by the agent.`,
    ...sections
      .filter((section): section is [string, string] => section[1] !== null)
      .map(([heading, body]) => `## ${heading}\n\n${body}`),
  ].join('\n\n');
  return text.length <= MAX_REPORT_CHARS
    ? `${text}\n`
    : `${text.slice(0, MAX_REPORT_CHARS - 120)}\n\n…(the report was cut at ${MAX_REPORT_CHARS} characters; GET /findings and /actions have everything)\n`;
}
