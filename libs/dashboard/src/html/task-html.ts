import { readFinding, type ActionRecord, type ArtifactEntry, type UserMessage } from '@vigil/tasks';
import { artifactIdsOf, artifactLink, artifactLinks } from './artifact-html';
import type { TaskDetails, VerificationRow } from '../task-details';
import type { TimelineEntry } from '../timeline';
import { markup, SafeHtml } from './escape';
import { formatJson, formatTime, formatUnits, formatUsd } from './format';
import { DASHBOARD_BASE, layout } from './layout';
import { ageCell, inFlightCell, statusBadge } from './task-row-html';

const CONTROLS = ['stop', 'pause', 'resume'] as const;

/** A task read back from the object store: said first, and no buttons (nothing can change it). */
function archivedBanner(details: TaskDetails): SafeHtml | string {
  return details.fromArchive
    ? markup`<p class="banner archived" data-archived>archived — kept in the object store since its retention ran out; read-only.</p>`
    : '';
}

function controls(details: TaskDetails, csrfToken: string): SafeHtml | string {
  if (details.fromArchive) return '';
  const allowed = CONTROLS.filter((control) => details.controls[control]);
  if (allowed.length === 0)
    return markup`<p class="note">No control applies to a ${details.task.status} task.</p>`;
  const form = (
    control: string,
  ) => markup`<form method="post" action="${DASHBOARD_BASE}/${details.task.id}/${control}">
<input type="hidden" name="csrf" value="${csrfToken}">
<button type="submit" data-control="${control}">${control}</button>
</form>`;
  return markup`<div class="controls">${allowed.map(form)}</div>`;
}

function summary(details: TaskDetails, staleAfterMs: number): SafeHtml {
  const { task, row } = details;
  const item = (term: string, value: SafeHtml | string) => markup`<dt>${term}</dt><dd>${value}</dd>`;
  const heartbeat = ageCell(
    row.lastHeartbeatAt,
    row.heartbeatAgeMs,
    row.watchHeartbeat ? staleAfterMs : null,
    row.stale,
  );
  const parent = task.parentId
    ? item('parent', markup`<a href="${DASHBOARD_BASE}/${task.parentId}">${task.parentId}</a>`)
    : '';
  return markup`<dl class="summary">
${item('status', statusBadge(task.status, task.statusReason))}
${item('kind', `${task.kind} (version ${task.kindVersion})`)}
${item('tenant', task.tenantId)}
${item('attempt', String(task.attempt))}
${item('provider / model', `${task.provider ?? '—'} / ${task.model}`)}
${item('current step', markup`<span data-field="currentStep">${task.currentStep ?? '—'}</span>`)}
${item('units', markup`<span data-field="units">${formatUnits(task.completedUnits, task.totalUnits)}</span>`)}
${item('heartbeat', heartbeat)}
${item('call in flight', inFlightCell(row))}
${item('retries', String(task.retryCount))}
${item('spend / budget', `${formatUsd(task.spentUsd)} / ${formatUsd(task.budgetUsd)}`)}
${item('slices', String(task.sliceCount))}
${item('code version', task.codeVersion || '—')}
${item('created / finished', `${formatTime(task.createdAt)} / ${formatTime(task.finishedAt)}`)}
${parent}
${task.humanQuestion ? item('question', task.humanQuestion) : ''}
</dl>`;
}

function timelineRow(entry: TimelineEntry, taskId: string): SafeHtml {
  const change = entry.from || entry.to ? `${entry.from ?? ''} → ${entry.to ?? ''}` : '';
  const shot = entry.artifact ? artifactLink(taskId, entry.artifact) : '';
  const attempt = entry.source === 'artifact' ? '' : String(entry.attempt);
  return markup`<tr class="${entry.source}"><td>${formatTime(entry.at)}</td><td>${shot}${entry.what}</td><td>${change}</td><td>${attempt}</td><td>${entry.reason ?? ''}</td></tr>`;
}

function timeline(details: TaskDetails): SafeHtml {
  const lost = details.timelineComplete
    ? ''
    : markup`<p class="note">Early events have left the event stream; failed attempts come from the record.</p>`;
  return markup`<section><h2>Timeline</h2>
${lost}
<table class="timeline"><thead><tr><th>at</th><th>what</th><th>from → to</th><th>attempt</th><th>reason</th></tr></thead>
<tbody>${details.timeline.map((entry) => timelineRow(entry, details.task.id))}</tbody></table></section>`;
}

function verificationRow(row: VerificationRow): SafeHtml {
  const result =
    row.passed === null
      ? markup`<td>pending</td>`
      : markup`<td class="${row.passed ? 'pass' : 'fail'}">${row.passed ? 'pass' : 'fail'}${row.detail ? ` — ${row.detail}` : ''}</td>`;
  return markup`<tr><td>${row.check}</td><td>${formatJson(row.expected)}</td><td>${formatJson(row.actual)}</td>${result}</tr>`;
}

function verification(details: TaskDetails): SafeHtml {
  const { rows, at, passed } = details.verification;
  const verdict =
    passed === null ? 'not verified yet' : `${passed ? 'passed' : 'failed'} at ${formatTime(at)}`;
  return markup`<section><h2>Verification</h2><p>${verdict}</p>
<table class="verification"><thead><tr><th>check</th><th>expected</th><th>actual</th><th>result</th></tr></thead>
<tbody>${rows.map(verificationRow)}</tbody></table></section>`;
}

function heading(title: string, total: number, shown: number): SafeHtml {
  const note = total > shown ? `, newest ${shown} shown` : '';
  return markup`<h2>${title} <small>(${total}${note})</small></h2>`;
}

/** The task's artifacts by id, as its list holds them. */
function artifactsById(details: TaskDetails): Map<string, ArtifactEntry> {
  return new Map(details.artifacts.map((entry) => [entry.id, entry]));
}

function actionRow(action: ActionRecord, taskId: string, known: Map<string, ArtifactEntry>): SafeHtml {
  const outcome = action.error ?? formatJson(action.result, 200);
  const shots = action.error ? '' : artifactLinks(taskId, artifactIdsOf(action.result), known);
  return markup`<tr class="${action.error ? 'fail' : ''}"><td>${action.step}</td><td>${action.attempt}</td><td>${action.tool}</td><td>${formatJson(action.args, 200)}</td><td>${shots}${outcome}</td><td>${action.durationMs} ms</td><td class="id">${action.codeVersion ?? ''}</td></tr>`;
}

function actionLog(details: TaskDetails): SafeHtml {
  const { entries, total } = details.actions;
  const known = artifactsById(details);
  const row = (action: ActionRecord) => actionRow(action, details.task.id, known);
  return markup`<section>${heading('Action log', total, entries.length)}
<table class="actions"><thead><tr><th>step</th><th>attempt</th><th>tool</th><th>args</th><th>result</th><th>took</th><th>code</th></tr></thead>
<tbody>${[...entries].reverse().map(row)}</tbody></table></section>`;
}

function findings(details: TaskDetails): SafeHtml {
  const { entries, total } = details.findings;
  const known = artifactsById(details);
  const item = (finding: unknown) => {
    const shots = artifactLinks(details.task.id, readFinding(finding).artifacts ?? [], known);
    return markup`<li>${shots}<code>${formatJson(finding, 600)}</code></li>`;
  };
  return markup`<section>${heading('Findings', total, entries.length)}<ul class="findings">${entries.map(item)}</ul></section>`;
}

function messages(details: TaskDetails): SafeHtml {
  const { entries, total } = details.messages;
  const item = (message: UserMessage) =>
    markup`<li><span class="kind">${message.kind}</span> <time>${message.sentAt}</time> ${message.text}</li>`;
  return markup`<section>${heading('Messages the user received', total, entries.length)}<ul class="messages">${entries.map(item)}</ul></section>`;
}

function children(details: TaskDetails): SafeHtml {
  const text = details.children === null ? 'none' : formatJson(details.children);
  return markup`<section><h2>Children</h2><p>${text}</p></section>`;
}

/** The part of the task page the live stream replaces whenever the task changes. */
export function taskBody(details: TaskDetails, csrfToken: string, staleAfterMs: number): SafeHtml {
  return markup`<h1>${details.task.title || details.task.id} <small class="id">${details.task.id}</small></h1>
${archivedBanner(details)}
${summary(details, staleAfterMs)}
${controls(details, csrfToken)}
${timeline(details)}
${verification(details)}
${actionLog(details)}
${findings(details)}
${messages(details)}
${children(details)}`;
}

export function taskPage(
  details: TaskDetails,
  csrfToken: string,
  staleAfterMs: number,
  now = Date.now(),
): string {
  return layout(
    details.task.title || details.task.id,
    `${DASHBOARD_BASE}/${details.task.id}/live?after=${now}`,
    taskBody(details, csrfToken, staleAfterMs),
    now,
  );
}
