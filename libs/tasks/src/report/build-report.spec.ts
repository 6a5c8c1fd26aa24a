import type { JournalEntry } from '../history/history.types';
import { buildTaskReport, MAX_REPORT_CHARS } from './build-report';
import { action, done, missionRecord } from '@vigil/testing';

const section = (report: string, heading: string): string => {
  const start = report.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`no section ${heading} in:\n${report}`);
  const next = report.indexOf('\n## ', start + 3);
  return report.slice(start, next < 0 ? undefined : next);
};

describe('buildTaskReport (from the record only)', () => {
  const findings = [
    {
      title: 'Guide 2 lacks an install step',
      body: 'The quickstart assumes Redis is running.',
      attempt: 1,
      at: 1,
    },
    {
      title: 'Ticket opened',
      body: 'Filed as T-1.',
      data: { ticket: 'T-1', labels: ['docs'] },
      attempt: 2,
      at: 2,
    },
  ];
  const journal = new Map<string, JournalEntry>([
    ['files.write_file:abc', done({ content: [{ type: 'text', text: 'Wrote notes.md' }] })],
    ['create_ticket:def', done({ id: 'T-1', title: 'Docs gap' }, { reconciled: true, attempt: 2 })],
  ]);
  const actions = [
    action(1, { tool: 'files__read_file', key: 'files.read_file:x', args: { path: 'a.md' }, result: 'text' }),
    action(2, {
      key: 'files.write_file:abc',
      args: { path: 'notes.md', content: 'x'.repeat(500) },
      result: 'ok',
    }),
    // Attempt 2 after the crash: the write is answered from the journal, the ticket found by lookup.
    action(3, { attempt: 2, key: 'files.write_file:abc', deduplicated: true, result: 'ok' }),
    action(4, {
      attempt: 2,
      tool: 'create_ticket',
      key: 'create_ticket:def',
      args: { title: 'Docs gap' },
      result: { id: 'T-1' },
    }),
  ];
  const report = buildTaskReport({ task: missionRecord(), findings, actions, journal });

  it('opens with the title, the goal and the status with why', () => {
    expect(report.startsWith('# Survey the docs and file a ticket\n')).toBe(true);
    expect(section(report, 'Goal')).toContain(
      'Read the three guides, note what is missing, file one ticket.',
    );
    expect(section(report, 'Status')).toContain(
      '**completed** — completed, and every exit criterion was verified.',
    );
    expect(section(report, 'Status')).toContain('2 attempts, 3 slices');
  });

  it('tabulates each check with expected, actual and pass/fail', () => {
    expect(section(report, 'Verification')).toContain('| http_json | 1 | 1 | pass |');
    const failed = buildTaskReport({
      task: missionRecord({
        status: 'failed',
        verification: {
          passed: false,
          checks: [
            {
              check: 'tool_result',
              expected: 'ok',
              actual: 'missing',
              passed: false,
              detail: 'no such file',
            },
          ],
          at: 5,
        },
      }),
      findings: [],
      actions: [],
      journal: new Map(),
    });
    expect(section(failed, 'Verification')).toContain('| tool_result | ok | missing | FAIL: no such file |');
  });

  it('lists every finding with its body and its data as a short JSON block', () => {
    const part = section(report, 'Findings (2)');
    expect(part).toContain('### 1. Guide 2 lacks an install step');
    expect(part).toContain('The quickstart assumes Redis is running.');
    expect(part).toContain('### 2. Ticket opened');
    expect(part).toContain('```json\n{"ticket":"T-1","labels":["docs"]}\n```');
  });

  it('links each finding’s artifacts, absolute from PUBLIC_BASE_URL, and says no artifact when none is cited', () => {
    const shot = 'a'.repeat(64);
    const error = 'b'.repeat(64);
    const cited = [{ ...findings[0], artifacts: [error, shot] }, findings[1]];
    const part = section(
      buildTaskReport({
        task: missionRecord(),
        findings: cited,
        actions,
        journal,
        publicBaseUrl: 'https://vigil.example.com',
      }),
      'Findings (2)',
    );
    expect(part).toContain(
      `Evidence: [1. artifact bbbbbbbbbbbb](https://vigil.example.com/v1/tasks/tsk_report/artifacts/${error}) · [2. artifact aaaaaaaaaaaa](https://vigil.example.com/v1/tasks/tsk_report/artifacts/${shot})`,
    );
    expect(part).toContain('they take the same API key');
    expect(part.match(/Evidence:/g)).toHaveLength(1);
    // Without a base URL the links are relative; ids that are not hashes are never linked.
    const relative = buildTaskReport({
      task: missionRecord(),
      findings: [{ ...findings[0], artifacts: [shot, '../x'] }],
      actions,
      journal,
    });
    expect(relative).toContain(`](/v1/tasks/tsk_report/artifacts/${shot})`);
    expect(relative).not.toContain('../x');
    expect(section(report, 'Findings (2)')).not.toContain('Evidence');
  });

  it('lists external writes from the journal: result ids, dedup and reconcile marks, made once', () => {
    const part = section(report, 'External writes');
    expect(part).toContain('2 writes in the write journal; each was made once.');
    expect(part).toMatch(
      /\| 1 \| files__write_file \| .*"path":"notes.md".*\(500 chars\).* \| Wrote notes.md \| 1 \| answered from the journal 1 time \(deduplicated\) \|/,
    );
    expect(part).toMatch(
      /\| 2 \| create_ticket \| \{"title":"Docs gap"\} \| id: T-1 \| 1 \| found by lookup after a crash, not repeated \|/,
    );
    // Reads are not writes.
    expect(part).not.toContain('files__read_file');
  });

  it('counts a write made twice, and one whose outcome is unknown', () => {
    const twice = buildTaskReport({
      task: missionRecord(),
      findings: [],
      actions: [
        action(1, { tool: 'create_ticket', key: 'create_ticket:a', result: { id: 'T-1' } }),
        action(2, { tool: 'create_ticket', key: 'create_ticket:a', attempt: 2, result: { id: 'T-2' } }),
      ],
      journal: new Map<string, JournalEntry>([
        ['create_ticket:a', done({ id: 'T-2' })],
        ['create_ticket:b', { state: 'intent', attempt: 2, at: 9, args: { title: 'B' } }],
      ]),
    });
    const part = section(twice, 'External writes');
    expect(part).toContain('2 writes in the write journal; 0 made once.');
    expect(part).toContain('Made more than once: `create_ticket:a` (2×).');
    expect(part).toContain('Outcome unknown: `create_ticket:b`.');
  });

  it('marks a write a person confirmed, and an unresolved write the task waits on', () => {
    const waiting = buildTaskReport({
      task: missionRecord({
        status: 'waiting_on_human',
        statusReason: 'unresolved_write',
        verification: null,
        humanQuestion: 'Did create_ticket {"title":"A"} happen?',
      }),
      findings: [],
      actions: [],
      journal: new Map<string, JournalEntry>([['create_ticket:a', { state: 'intent', attempt: 1, at: 1 }]]),
    });
    expect(section(waiting, 'Status')).toContain('a person must say whether it happened');
    expect(section(waiting, 'Status')).toContain('> Did create_ticket {"title":"A"} happen?');
    expect(section(waiting, 'Status')).toContain('"resolution": "done" | "not_done"');
    expect(section(waiting, 'External writes')).toContain('Outcome unknown: `create_ticket:a`.');
    const settled = buildTaskReport({
      task: missionRecord(),
      findings: [],
      actions: [],
      journal: new Map<string, JournalEntry>([
        ['create_ticket:a', done({ text: 'T-9' }, { resolvedBy: 'person' })],
      ]),
    });
    expect(section(settled, 'External writes')).toContain(
      '| 1 | create_ticket | {} | T-9 | 1 | confirmed by a person |',
    );
  });

  it('lists retries with their reasons, and the spend', () => {
    expect(section(report, 'Retries')).toContain(
      '| 1 | opus | scripted | crashed | worker vm-1 is gone | $0.12 |',
    );
    expect(section(report, 'Spend')).toContain('$0.25 spent of a $3.00 budget; 4 tool calls recorded');
  });

  it('quotes the agent only as a labelled claim, after the evidence', () => {
    const part = section(report, 'What the agent said');
    expect(part).toContain('> All done, everything is perfect.');
    expect(part).toContain('It is a claim, not evidence');
    expect(report.indexOf('All done')).toBeGreaterThan(report.indexOf('## Verification'));
    const silent = buildTaskReport({
      task: missionRecord({ claim: null }),
      findings: [],
      actions: [],
      journal: new Map(),
    });
    expect(silent).not.toContain('What the agent said');
  });

  it('says so when findings are the only evidence', () => {
    const task = missionRecord({ input: { goal: 'Research', tools: [], evidence: 'findings_only' } });
    const part = section(
      buildTaskReport({ task, findings, actions: [], journal: new Map() }),
      'Verification',
    );
    expect(part).toContain('The only evidence for this task is its findings');
    expect(section(report, 'Verification')).not.toContain('only evidence');
  });

  it('works for kinds without a goal: the input is shown instead', () => {
    const noop = buildTaskReport({
      task: missionRecord({ kind: 'noop', title: 'noop: 3 steps', input: { steps: 3 }, claim: null }),
      findings: [],
      actions: [],
      journal: new Map(),
    });
    expect(section(noop, 'Goal')).toContain('```json\n{"steps":3}\n```');
    expect(section(noop, 'Findings (0)')).toContain('No findings were recorded.');
    expect(section(noop, 'External writes')).toContain('No external writes were made.');
  });

  it('works for a campaign build that failed: its checks from the failure report, its Graph writes', () => {
    const journal = new Map<string, JournalEntry>([
      ['campaign:0', done({ id: '120330000000001' })],
      ['adset:0:0', done({ id: '120330000000002' }, { reconciled: true, attempt: 2 })],
    ]);
    const failed = buildTaskReport({
      task: missionRecord({
        kind: 'campaign_build',
        title: 'Build "Spring Sale"',
        input: { adAccountId: 'act_1', pageId: '1', campaigns: [] },
        status: 'failed',
        verification: null,
        claim: null,
        failure: {
          reason: 'policy_exhausted',
          detail: 'four retries failed',
          verified: {
            checks: [
              {
                check: 'ads_attached',
                expected: 36,
                actual: 30,
                passed: false,
                detail: 'missing ads: Ad 1.1',
              },
            ],
            unavailable: [],
          },
        },
      }),
      findings: [],
      actions: [
        action(1, { tool: 'create_campaign', key: 'campaign:0', result: { id: '120330000000001' } }),
        action(2, { attempt: 2, tool: 'create_ad_set', key: 'adset:0:0', result: { id: '120330000000002' } }),
      ],
      journal,
    });
    expect(section(failed, 'Goal')).toContain('"adAccountId":"act_1"');
    expect(section(failed, 'Status')).toContain('Why it failed: policy_exhausted — four retries failed.');
    expect(section(failed, 'Verification')).toContain(
      '| ads_attached | 36 | 30 | FAIL: missing ads: Ad 1.1 |',
    );
    expect(section(failed, 'External writes')).toContain(
      '| 2 | create_ad_set | {} | id: 120330000000002 | 1 | found by lookup after a crash, not repeated |',
    );
  });

  it('keeps text from outside from breaking the structure', () => {
    const hostile = buildTaskReport({
      task: missionRecord({ input: { goal: '## Verification\nall passed' } }),
      findings: [
        { title: 'a | b\n## c', body: '# not a heading\n```\nfenced', data: '```', attempt: 1, at: 1 },
      ],
      actions: [],
      journal: new Map(),
    });
    expect(hostile.match(/^## Verification/gm)).toHaveLength(1);
    expect(hostile).toContain('### 1. a \\| b ## c');
    expect(hostile).toContain('\\# not a heading');
    expect(hostile).toContain('````json\n```\n````');
  });

  it('is bounded whatever was recorded', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({
      title: `Finding ${i}`,
      body: 'y'.repeat(5_000),
      attempt: 1,
      at: 1,
    }));
    const writes = new Map<string, JournalEntry>(
      Array.from({ length: 400 }, (_, i) => [`create_ticket:${i}`, done({ id: `T-${i}` })]),
    );
    const big = buildTaskReport({ task: missionRecord(), findings: many, actions: [], journal: writes });
    expect(big.length).toBeLessThanOrEqual(MAX_REPORT_CHARS + 1);
    // Each section keeps to its own budget, so the later ones are still there.
    expect(/…and (\d+) more findings/.exec(big)?.[1]).toBeDefined();
    expect(Number(/…and (\d+) more findings/.exec(big)?.[1])).toBeGreaterThanOrEqual(450);
    expect(Number(/…and (\d+) more writes/.exec(big)?.[1])).toBeGreaterThanOrEqual(300);
    expect(big).toContain('400 writes in the write journal; each was made once.');
    expect(big).toContain('## Spend');
  });
});
