import type { TaskRow } from '../task-row';
import { markup, SafeHtml } from './escape';
import { formatAge, formatUnits, formatUsd } from './format';
import { DASHBOARD_BASE } from './layout';

/** An age that the page's script keeps counting; `data-stale-after` turns it red past the limit. */
export function ageCell(
  since: number | null,
  ageMs: number | null,
  staleAfterMs: number | null,
  stale: boolean,
): SafeHtml {
  if (since === null) return markup`<span class="age">—</span>`;
  const limit = staleAfterMs === null ? '' : markup` data-stale-after="${staleAfterMs}"`;
  return markup`<span class="age${stale ? ' stale' : ''}" data-since="${since}"${limit}>${formatAge(ageMs)}</span>`;
}

export function statusBadge(status: string, reason: string | null): SafeHtml {
  const why = reason ? markup` <span class="reason">(${reason})</span>` : '';
  return markup`<span class="status status-${status}" data-field="status">${status}</span>${why}`;
}

export function inFlightCell(row: TaskRow): SafeHtml {
  if (!row.inFlight) return markup`—`;
  const call = row.inFlight;
  const age = ageCell(call.since, call.ageMs, null, false);
  return markup`<span class="call${call.overdue ? ' stale' : ''}">${call.kind} ${call.name}</span> ${age}`;
}

/** One `<tr>` of the list; the live stream sends the same markup for a changed task. */
export function taskRowHtml(row: TaskRow, staleAfterMs: number): SafeHtml {
  const heartbeat = ageCell(
    row.lastHeartbeatAt,
    row.heartbeatAgeMs,
    row.watchHeartbeat ? staleAfterMs : null,
    row.stale,
  );
  return markup`<tr id="task-${row.id}" data-task-id="${row.id}">
<td><a href="${DASHBOARD_BASE}/${row.id}">${row.title || row.id}</a><div class="id">${row.id}</div></td>
<td>${row.tenantId}</td>
<td>${statusBadge(row.status, row.statusReason)}</td>
<td>${row.kind}</td>
<td>${row.attempt}</td>
<td>${row.provider ?? '—'} / ${row.model}</td>
<td data-field="currentStep">${row.currentStep ?? '—'}</td>
<td data-field="units">${formatUnits(row.completedUnits, row.totalUnits)}</td>
<td>${heartbeat}</td>
<td>${inFlightCell(row)}</td>
<td>${row.retryCount}</td>
<td>${formatUsd(row.spentUsd)} / ${formatUsd(row.budgetUsd)}</td>
<td class="id">${row.codeVersion || '—'}</td>
</tr>`;
}

export const ROW_HEADINGS = [
  'task',
  'tenant',
  'status',
  'kind',
  'attempt',
  'provider / model',
  'current step',
  'units',
  'heartbeat',
  'call in flight',
  'retries',
  'spend / budget',
  'code version',
];
