import type { CheckResult, RetryEntry, StructuredFailure, TaskRecord } from '../task.types';
import { resultId, summariseArgs, type WriteSummary } from './external-writes';
import { cell, clip, codeBlock, iso, paragraph, plural, quote, shortJson, table, usd } from './markdown';
import type { Finding } from '../history/finding';

/** Bounds of the report's parts (docs/missions.md, "The task report"). */
export const REPORT_LIMITS = {
  goalChars: 2_000,
  findings: 50,
  /** The findings section stops listing past this many characters (and says how many it left out). */
  findingsChars: 20_000,
  findingBodyChars: 2_000,
  findingDataChars: 800,
  /** Artifacts linked per finding. */
  findingArtifacts: 20,
  writes: 100,
  writesChars: 16_000,
  retries: 20,
  claimChars: 1_000,
} as const;

const STATUS_WORDS: Record<TaskRecord['status'], string> = {
  queued: 'queued: waiting for a Worker to start its next slice',
  running: 'running',
  waiting_on_tool: 'waiting on a tool',
  waiting_on_human: 'waiting for a person',
  paused: 'paused',
  verifying: 'verifying: its exit checks are being run',
  retrying: 'retrying after a failed attempt',
  completed: 'completed, and every exit criterion was verified',
  failed: 'failed',
  cancelled: 'stopped: nothing more will run',
};

const REASON_WORDS: Record<string, string> = {
  user: 'at the user’s request',
  budget: 'its budget is spent; resume it with a higher `budgetUsd`',
  global_spend_limit: 'the spending limit shared by all tasks was reached',
  human_input: 'it asked a question',
  children: 'its subtasks are running',
  unresolved_write:
    'a write’s outcome is unknown and cannot be looked up: a person must say whether it happened',
  archived: 'it was archived by a newer mission in its conversation',
  tenant_daily_budget:
    'your account’s spending limit for today (UTC) is reached; resume it tomorrow, or once the operator raises the limit',
  tenant_max_running: 'your account’s other tasks hold all its running places; it starts when one ends',
  tenant_fair_share:
    'your account’s other tasks hold its fair share of the workers while other accounts wait; it starts in its turn',
};

export function statusSection(task: TaskRecord): string {
  const lines = [`**${task.status}** — ${STATUS_WORDS[task.status]}.`];
  if (task.statusReason) lines.push(`Why: ${REASON_WORDS[task.statusReason] ?? task.statusReason}.`);
  if (task.status === 'waiting_on_human' && task.humanQuestion)
    lines.push(`The question:\n\n${quote(clip(task.humanQuestion, 1_000))}`);
  if (task.statusReason === 'unresolved_write')
    lines.push(
      `The write in question is marked “outcome unknown” under External writes. Answer with \`POST /v1/tasks/${task.id}/input\` and \`{"text": "…", "resolution": "done" | "not_done"}\`.`,
    );
  const failure = task.failure as Partial<StructuredFailure> | null;
  if (task.status === 'failed' && failure && typeof failure === 'object')
    lines.push(
      `Why it failed: ${failure.reason ?? 'unknown'}${failure.detail ? ` — ${clip(String(failure.detail), 500)}` : ''}.`,
    );
  const done = task.completedUnits ?? 0;
  lines.push(
    `${task.totalUnits !== null ? `${done} of ${task.totalUnits}` : plural(done, 'step')} recorded as done; ${plural(task.attempt, 'attempt')}, ${plural(task.sliceCount, 'slice')}.`,
    `Created ${iso(task.createdAt)}${task.finishedAt ? `, finished ${iso(task.finishedAt)}` : ''}.`,
  );
  return lines.join('\n\n');
}

/** The checks that decided the task, from the verification (or, for a failed task, its report). */
function checksOf(task: TaskRecord): { checks: CheckResult[]; at: number | null } {
  if (task.verification) return { checks: task.verification.checks, at: task.verification.at };
  const failure = task.failure as Partial<StructuredFailure> | null;
  const checks = failure && typeof failure === 'object' ? (failure.verified?.checks ?? []) : [];
  return { checks, at: null };
}

export function verificationSection(task: TaskRecord, findingsOnly: boolean): string {
  const { checks, at } = checksOf(task);
  const parts: string[] = [];
  if (findingsOnly)
    parts.push(
      'The only evidence for this task is its findings: it was created with `evidence: "findings_only"`, so nothing it did was checked against an external system.',
    );
  if (checks.length === 0) {
    parts.push(
      `Not verified yet. Its exit criteria: ${task.exitCriteria.map((c) => `\`${c.check}\` = ${shortJson(c.expected, 60)}`).join(', ') || 'none'}.`,
    );
    return parts.join('\n\n');
  }
  parts.push(
    `Run by the Watcher against the external systems and the runtime’s record${at ? ` at ${iso(at)}` : ''}, never against the agent’s claim.`,
    table(
      ['check', 'expected', 'actual', 'result'],
      checks.map((check) => [
        check.check,
        shortJson(check.expected, 80),
        shortJson(check.actual, 80),
        check.passed ? 'pass' : `FAIL${check.detail ? `: ${clip(check.detail, 160)}` : ''}`,
      ]),
    ),
  );
  return parts.join('\n\n');
}

/**
 * Where a finding's artifacts are fetched: `<PUBLIC_BASE_URL>/v1/tasks/<id>/artifacts/<artifact id>`,
 * absolute so a link works from a message read anywhere (relative without a base URL).
 */
export function artifactUrl(publicBaseUrl: string | undefined, taskId: string, artifactId: string): string {
  return `${publicBaseUrl ?? ''}/v1/tasks/${encodeURIComponent(taskId)}/artifacts/${artifactId}`;
}

/** A finding's evidence as links, one per artifact it cites (bounded). */
function evidenceLine(finding: Finding, url: (id: string) => string): string | null {
  const ids = finding.artifacts ?? [];
  if (ids.length === 0) return null;
  const shown = ids.slice(0, REPORT_LIMITS.findingArtifacts);
  const links = shown.map((id, i) => `[${i + 1}. artifact ${id.slice(0, 12)}](${url(id)})`);
  const more = ids.length - shown.length;
  return `Evidence: ${links.join(' · ')}${more > 0 ? ` …and ${more} more` : ''}`;
}

export function findingsSection(
  findings: readonly Finding[],
  url: (id: string) => string = (id) => id,
): string {
  if (findings.length === 0) return 'No findings were recorded.';
  const cited = findings.some((finding) => (finding.artifacts ?? []).length > 0);
  const rendered = findings.slice(0, REPORT_LIMITS.findings).map((finding, index) => {
    const when = [
      finding.attempt > 0 ? `attempt ${finding.attempt}` : null,
      finding.at > 0 ? iso(finding.at) : null,
    ].filter(Boolean);
    return [
      `### ${index + 1}. ${cell(clip(finding.title, 200))}`,
      finding.body ? paragraph(finding.body, REPORT_LIMITS.findingBodyChars) : null,
      finding.data !== undefined
        ? codeBlock(shortJson(finding.data, REPORT_LIMITS.findingDataChars), 'json')
        : null,
      evidenceLine(finding, url),
      when.length ? `_Recorded in ${when.join(', ')}._` : null,
    ]
      .filter(Boolean)
      .join('\n\n');
  });
  const shown = withinBudget(rendered, REPORT_LIMITS.findingsChars);
  const more = findings.length - shown.length;
  return [
    ...(cited
      ? [
          'Evidence links serve the artifacts the findings cite (screenshots, files); they take the same API key as the rest of the API.',
        ]
      : []),
    ...shown,
    ...(more > 0 ? [`…and ${plural(more, 'more finding')} (GET /findings lists them all).`] : []),
  ].join('\n\n');
}

/** The leading parts whose total length stays within `budget` (at least the first). */
function withinBudget(parts: string[], budget: number): string[] {
  let used = 0;
  const kept: string[] = [];
  for (const part of parts) {
    used += part.length + 2;
    if (kept.length > 0 && used > budget) break;
    kept.push(part);
  }
  return kept;
}

function writeNotes(write: WriteSummary): string {
  const notes = [
    write.state === 'unknown' ? 'outcome unknown: no result recorded' : null,
    write.reconciled ? 'found by lookup after a crash, not repeated' : null,
    write.settledByPerson ? 'confirmed by a person' : null,
    write.deduplicated > 0
      ? `answered from the journal ${plural(write.deduplicated, 'time')} (deduplicated)`
      : null,
    write.failedCalls > 0 ? `${plural(write.failedCalls, 'failed call')}` : null,
  ].filter(Boolean);
  return notes.join('; ');
}

export function writesSection(writes: readonly WriteSummary[]): string {
  if (writes.length === 0) return 'No external writes were made.';
  const once = writes.filter((write) => write.state === 'done' && write.made === 1).length;
  const repeated = writes.filter((write) => write.made > 1);
  const unknown = writes.filter((write) => write.state === 'unknown');
  const summary = [
    `${plural(writes.length, 'write')} in the write journal; ${once === writes.length ? `each was made once` : `${once} made once`}.`,
    repeated.length
      ? `Made more than once: ${repeated.map((w) => `\`${w.key}\` (${w.made}×)`).join(', ')}.`
      : null,
    unknown.length ? `Outcome unknown: ${unknown.map((w) => `\`${w.key}\``).join(', ')}.` : null,
  ]
    .filter(Boolean)
    .join(' ');
  const rows = writes
    .slice(0, REPORT_LIMITS.writes)
    .map((write, index) => [
      String(index + 1),
      write.tool,
      summariseArgs(write.args),
      write.state === 'done' ? clip(resultId(write.result) ?? '—', 80) : '—',
      String(write.made),
      writeNotes(write),
    ]);
  const header = ['#', 'tool', 'arguments', 'result', 'made', 'notes'];
  const lines = withinBudget(
    rows.map((row) => table(header, [row]).split('\n')[2]),
    REPORT_LIMITS.writesChars,
  );
  const more = writes.length - lines.length;
  return [
    summary,
    [table(header, []), ...lines].join('\n'),
    more > 0 ? `…and ${plural(more, 'more write')} (GET /actions lists every call).` : null,
  ]
    .filter(Boolean)
    .join('\n\n');
}

export function retriesSection(history: readonly RetryEntry[]): string {
  if (history.length === 0) return 'No attempt failed: the task needed no retries.';
  const shown = history.slice(-REPORT_LIMITS.retries);
  return [
    history.length > shown.length ? `The last ${shown.length} of ${history.length} failed attempts:` : null,
    table(
      ['attempt', 'model', 'ran on', 'why it ended', 'detail', 'cost'],
      shown.map((entry) => [
        String(entry.attempt),
        entry.model,
        entry.provider ?? '—',
        entry.reason,
        clip(entry.detail ?? '', 200),
        usd(entry.costUsd),
      ]),
    ),
  ]
    .filter(Boolean)
    .join('\n\n');
}

export function spendSection(task: TaskRecord, actions: number): string {
  return `${usd(task.spentUsd)} spent of a ${usd(task.budgetUsd)} budget; ${plural(actions, 'tool call')} recorded; ${Math.round(task.activeMs / 1000)} s of active time.`;
}

/** The agent's own completion claim, quoted and marked as a claim. */
export function claimSection(task: TaskRecord): string | null {
  if (!task.claim?.summary) return null;
  return [
    quote(clip(task.claim.summary, REPORT_LIMITS.claimChars)),
    `_The agent said this when it claimed to be finished (attempt ${task.claim.attempt}). It is a claim, not evidence: everything above comes from the runtime’s record._`,
  ].join('\n\n');
}
