import type { TaskEvent, TaskEventOf, TaskEventType } from '@vigil/events';
import { decodeTask, TaskRecord } from '@vigil/tasks';
import { escapeHtml, markup } from './html/escape';
import { taskRowHtml } from './html/task-row-html';
import { verificationRows } from './task-details';
import { toTaskRow } from './task-row';
import { buildTimeline } from './timeline';

const NOW = 1_800_000_000_000;
const STALE_AFTER_MS = 120_000;

function task(fields: Record<string, string>): TaskRecord {
  return decodeTask({
    id: 'tsk_1',
    tenantId: 'acme',
    kind: 'noop',
    title: 'a task',
    status: 'running',
    attempt: '2',
    model: 'opus',
    createdAt: String(NOW - 60_000),
    updatedAt: String(NOW - 1_000),
    ...fields,
  })!;
}

const event = <T extends TaskEventType>(
  type: T,
  at: number,
  extra: Partial<TaskEventOf<T>> = {},
): TaskEvent =>
  ({
    id: `${at}-0`,
    shard: 0,
    type,
    taskId: 'tsk_1',
    tenantId: 'acme',
    attempt: 1,
    at,
    status: '',
    from: '',
    data: {},
    ...extra,
  }) as TaskEvent;

describe('dashboard rows', () => {
  it('marks a running task stale once its heartbeat is older than STALE_AFTER_MS, and says how old', () => {
    const fresh = toTaskRow(task({ lastHeartbeatAt: String(NOW - 5_000) }), NOW, STALE_AFTER_MS);
    expect(fresh).toMatchObject({ heartbeatAgeMs: 5_000, stale: false, watchHeartbeat: true });
    const old = toTaskRow(task({ lastHeartbeatAt: String(NOW - 120_001) }), NOW, STALE_AFTER_MS);
    expect(old).toMatchObject({ heartbeatAgeMs: 120_001, stale: true });
    expect(taskRowHtml(old, STALE_AFTER_MS).html).toContain('class="age stale"');
    expect(taskRowHtml(fresh, STALE_AFTER_MS).html).toContain('class="age" data-since');
  });

  it('never calls a paused or finished task stale: nobody should be beating for it', () => {
    for (const status of ['paused', 'completed', 'queued'])
      expect(
        toTaskRow(task({ status, lastHeartbeatAt: String(NOW - 3_600_000) }), NOW, STALE_AFTER_MS),
      ).toMatchObject({ stale: false, watchHeartbeat: false });
  });

  it('shows the call in flight with its age, overdue past its deadline', () => {
    const inFlight = JSON.stringify({
      kind: 'model',
      name: 'opus',
      since: NOW - 30_000,
      deadlineAt: NOW - 1,
    });
    const row = toTaskRow(task({ inFlight }), NOW, STALE_AFTER_MS);
    expect(row.inFlight).toEqual({
      kind: 'model',
      name: 'opus',
      since: NOW - 30_000,
      ageMs: 30_000,
      overdue: true,
    });
    expect(taskRowHtml(row, STALE_AFTER_MS).html).toContain('<span class="call stale">model opus</span>');
  });

  it('escapes every value it prints', () => {
    const row = toTaskRow(task({ title: '<img src=x onerror=alert(1)>' }), NOW, STALE_AFTER_MS);
    const rendered = taskRowHtml(row, STALE_AFTER_MS).html;
    expect(rendered).not.toContain('<img');
    expect(rendered).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(escapeHtml(`"'&`)).toBe('&quot;&#39;&amp;');
    expect(markup`<p title="${'a"b'}">${markup`<b>safe</b>`}</p>`.html).toBe(
      '<p title="a&quot;b"><b>safe</b></p>',
    );
  });
});

describe('the task timeline', () => {
  it('lists transitions and failed attempts with their reasons, oldest first, without step events', () => {
    const retryHistory = JSON.stringify([
      {
        attempt: 1,
        model: 'opus',
        provider: 'scripted',
        result: 'failed',
        reason: 'crashed',
        detail: 'worker w1 is gone',
        costUsd: 0.5,
        at: NOW - 20_000,
      },
    ]);
    const timeline = buildTimeline(task({ retryHistory }), [
      event('task.created', NOW - 50_000, { status: 'queued' }),
      event('task.progress', NOW - 40_000, { status: 'running' }),
      event('task.started', NOW - 45_000, { from: 'queued', status: 'running' }),
      event('task.recovered', NOW - 19_000, {
        attempt: 2,
        from: 'running',
        status: 'queued',
        data: { retryNumber: 1, reason: 'crashed', completedUnits: 0 },
      }),
      event('task.created', NOW - 10_000, { taskId: 'another' }),
    ]);
    expect(timeline.map((entry) => [entry.what, entry.reason])).toEqual([
      ['task.created', null],
      ['task.started', null],
      ['attempt 1 failed', 'crashed · worker w1 is gone · scripted / opus · $0.5000'],
      ['task.recovered', 'reason: crashed'],
    ]);
    expect(timeline[3]).toMatchObject({ from: 'running', to: 'queued', attempt: 2 });
  });
});

describe('the timeline of a steered task', () => {
  it('shows each instruction given while it ran, with its text (docs/api.md, "Steering")', () => {
    const timeline = buildTimeline(task({}), [
      event('task.steered', NOW - 5_000, {
        from: 'running',
        status: 'running',
        data: { id: 'st_1', text: 'Skip the EU sites.', afterStep: 4 },
      }),
    ]);
    expect(timeline.map((entry) => [entry.what, entry.reason])).toEqual([
      ['task.steered', 'text: Skip the EU sites.'],
    ]);
  });
});

describe('the verification table', () => {
  it('puts each criterion beside its last result, pending until verified', () => {
    const criteria = [
      { check: 'all_steps_recorded', expected: 3 },
      { check: 'tool_result', expected: 'Ada', args: { tool: 'memory.read_graph' } },
    ];
    expect(verificationRows(criteria, undefined).map((row) => row.passed)).toEqual([null, null]);
    const rows = verificationRows(criteria, [
      { check: 'all_steps_recorded', expected: 3, actual: 3, passed: true },
      { check: 'tool_result', expected: 'Ada', actual: 'Bob', passed: false, detail: 'differs' },
    ]);
    expect(rows).toEqual([
      { check: 'all_steps_recorded', expected: 3, actual: 3, passed: true, detail: null },
      { check: 'tool_result', expected: 'Ada', actual: 'Bob', passed: false, detail: 'differs' },
    ]);
  });
});
