import { TASK_STATUSES } from '@vigil/tasks';
import type { Board, BoardFilter } from '../task-board';
import { markup } from './escape';
import { DASHBOARD_BASE, layout } from './layout';
import { ROW_HEADINGS, taskRowHtml } from './task-row-html';

function query(filter: BoardFilter, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(extra);
  if (filter.status) params.set('status', filter.status);
  if (filter.tenantId) params.set('tenant', filter.tenantId);
  const text = params.toString();
  return text ? `?${text}` : '';
}

const option = (value: string, selected: boolean, label = value) =>
  markup`<option value="${value}"${selected ? markup` selected` : ''}>${label}</option>`;

/** The list page: filters, counts per status (from the indexes), the newest tasks. */
export function boardPage(board: Board, filter: BoardFilter, staleAfterMs: number, now = Date.now()): string {
  const statuses = TASK_STATUSES.map((status) => option(status, filter.status === status));
  const tenants = board.tenants.map((tenant) => option(tenant, filter.tenantId === tenant));
  const counts = TASK_STATUSES.filter((status) => board.counts[status] > 0).map(
    (status) =>
      markup`<a href="${DASHBOARD_BASE}${query({ ...filter, status })}">${status} ${board.counts[status]}</a> `,
  );
  const empty = board.rows.length === 0 ? markup`<p class="empty">No task matches.</p>` : '';
  const more = board.truncated
    ? markup`<p class="note">Showing the newest ${board.rows.length}; filter to see others.</p>`
    : '';
  const body = markup`<h1>Tasks</h1>
<form class="filters" method="get" action="${DASHBOARD_BASE}">
<label>status <select name="status">${option('', !filter.status, 'any')}${statuses}</select></label>
<label>tenant <select name="tenant">${option('', !filter.tenantId, 'any')}${tenants}</select></label>
<button type="submit">filter</button>
</form>
<p class="counts">${counts}</p>
<table class="tasks">
<thead><tr>${ROW_HEADINGS.map((heading) => markup`<th>${heading}</th>`)}</tr></thead>
<tbody id="rows">${board.rows.map((row) => taskRowHtml(row, staleAfterMs))}</tbody>
</table>
${empty}
${more}`;
  return layout('tasks', `${DASHBOARD_BASE}/live${query(filter, { after: String(now) })}`, body, now);
}
