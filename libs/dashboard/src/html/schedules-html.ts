import type { Schedule, ScheduleRun } from '@vigil/schedules';
import { markup } from './escape';
import { DASHBOARD_BASE, layout } from './layout';

export const SCHEDULES_BASE = `${DASHBOARD_BASE}/schedules`;

const when = (ms: number | undefined) =>
  ms === undefined ? '' : new Date(ms).toISOString().replace('.000Z', 'Z');
const scheduleLink = (id: string) => `${SCHEDULES_BASE}/${encodeURIComponent(id)}`;
const taskLink = (id: string) => `${DASHBOARD_BASE}/${encodeURIComponent(id)}`;

/** Every tenant's schedules (docs/schedules.md, "On the dashboard"): read-only, newest first. */
export function schedulesPage(schedules: readonly Schedule[], nextFire: ReadonlyMap<string, number>): string {
  const rows = schedules.map(
    (schedule) => markup`<tr>
<td><a href="${scheduleLink(schedule.id)}">${schedule.name}</a></td>
<td>${schedule.tenantId}</td>
<td>${schedule.state}</td>
<td><code>${schedule.cron}</code> ${schedule.timezone}</td>
<td>${schedule.overlap}</td>
<td>${when(nextFire.get(schedule.id))}</td>
<td>${when(schedule.lastFireTime)} ${schedule.lastOutcome ?? ''}</td>
</tr>`,
  );
  const body = markup`<h1>Schedules</h1>
${
  rows.length
    ? markup`<table class="board">
<thead><tr><th>name</th><th>tenant</th><th>state</th><th>cron</th><th>overlap</th><th>next fire</th><th>last fire</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
    : markup`<p>No schedules.</p>`
}`;
  return layout('Schedules', '', body);
}

/** One schedule and its runs, each linked to the task it created. */
export function schedulePage(schedule: Schedule, runs: readonly ScheduleRun[], nextFireAt?: number): string {
  const rows = runs.map(
    (run) => markup`<tr>
<td>${when(run.fireTime)}</td>
<td>${run.trigger}</td>
<td>${run.outcome}</td>
<td>${run.taskId ? markup`<a href="${taskLink(run.taskId)}">${run.taskId}</a>` : ''}</td>
<td>${run.reason ?? (run.previousTaskId ? `previous ${run.previousTaskId}` : '')}</td>
</tr>`,
  );
  const body = markup`<p><a href="${SCHEDULES_BASE}">all schedules</a></p>
<h1>${schedule.name}</h1>
<dl>
<dt>id</dt><dd>${schedule.id}</dd>
<dt>tenant</dt><dd>${schedule.tenantId}</dd>
<dt>state</dt><dd>${schedule.state}</dd>
<dt>cron</dt><dd><code>${schedule.cron}</code> in ${schedule.timezone}</dd>
<dt>overlap</dt><dd>${schedule.overlap}, catch up ${schedule.catchUpMs} ms</dd>
<dt>next fire</dt><dd>${schedule.state === 'active' ? when(nextFireAt) : 'none (paused)'}</dd>
<dt>task</dt><dd><code>${JSON.stringify(schedule.task)}</code></dd>
</dl>
<h2>Runs</h2>
${
  rows.length
    ? markup`<table class="board">
<thead><tr><th>fire time</th><th>trigger</th><th>outcome</th><th>task</th><th>why</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
    : markup`<p>No runs yet.</p>`
}`;
  return layout(schedule.name, '', body);
}
