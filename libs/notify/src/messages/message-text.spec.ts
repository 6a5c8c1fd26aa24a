import type { StructuredFailure } from '@vigil/tasks';
import { PERCENTAGE, taskEvent, taskRecord } from '@vigil/testing';
import { composeForEvent } from './compose';
import { pausedText, recoveryText } from './event-texts';
import { completedText, failedText } from './final-texts';
import { progressText } from './progress-text';

describe('message texts (from the record only)', () => {
  it('progress names the current step, exact counts, retries and what the user must do', () => {
    const text = progressText(taskRecord());
    expect(text).toContain('Your task "Build the spring campaign" is running.');
    expect(text).toContain('Current step: noop step (step:3).');
    expect(text).toContain('3 of 40 steps are complete.');
    expect(text).toContain('No retries have been needed.');
    expect(text).toContain('Nothing is needed from you right now.');
    expect(text).not.toMatch(PERCENTAGE);
  });

  it('a task waiting for one of its tenant’s running places, or paused by its tenant’s daily budget, is told so in words', () => {
    const waiting = progressText(taskRecord({ status: 'queued', statusReason: 'tenant_max_running' }));
    expect(waiting).toContain(
      "is waiting for its turn: your account's other tasks hold all of its running places",
    );
    const paused = pausedText(taskRecord({ id: 'tsk_1', status: 'paused' }), {
      by: 'limit',
      reason: 'tenant_daily_budget',
    });
    expect(paused).toContain("your account's spending limit for today (UTC) has been reached");
    expect(paused).toContain(
      'Resume it (POST /v1/tasks/tsk_1/resume) tomorrow, or once the operator raises the limit.',
    );
  });

  it('progress of a parent waiting on its child missions counts them from its record', () => {
    const text = progressText(
      taskRecord({
        status: 'waiting_on_tool',
        statusReason: 'children',
        children: { total: 7, running: 3, done: 2 },
      }),
    );
    expect(text).toContain(
      'Your task "Build the spring campaign" is waiting for its child tasks: 2 of 7 have ended, 3 running.',
    );
    expect(text).not.toMatch(PERCENTAGE);
  });

  it('progress follows the record: another step, another count, a retry', () => {
    const before = progressText(taskRecord());
    const after = progressText(
      taskRecord({
        currentStep: 'noop_step step:17',
        completedUnits: 18,
        retryCount: 1,
        retryHistory: [
          {
            attempt: 1,
            model: 'opus',
            provider: 'scripted',
            result: 'failed',
            reason: 'frozen',
            costUsd: 0,
            at: 1,
          },
        ],
      }),
    );
    expect(after).not.toBe(before);
    expect(after).toContain('Current step: noop step (step:17).');
    expect(after).toContain('18 of 40 steps are complete.');
    expect(after).toContain(
      'retried 1 time so far; the last retry was needed because the worker running it stopped responding',
    );
    expect(after).not.toContain('opus');
  });

  it('without a total it says the task runs normally and invents no progress', () => {
    for (const completedUnits of [null, 7]) {
      const text = progressText(taskRecord({ totalUnits: null, completedUnits }));
      expect(text).toContain('The task is still running normally');
      expect(text).not.toMatch(PERCENTAGE);
      expect(text).not.toMatch(/\d+ of \d+/);
      expect(text).not.toMatch(/almost|nearly/i);
    }
    expect(progressText(taskRecord({ totalUnits: null, completedUnits: 7 }))).toContain(
      '7 steps are complete so far',
    );
  });

  it('a queued task that never started says so and shows no progress line', () => {
    const text = progressText(
      taskRecord({ status: 'queued', startedAt: null, currentStep: null, completedUnits: 0 }),
    );
    expect(text).toMatch(/is queued and starts as soon as a worker picks it up/);
    expect(text).not.toMatch(/steps are complete|running normally/);
  });

  it('recovery is honest and names no model, error text or stack', () => {
    const task = taskRecord({ model: 'gemini', retryCount: 1, completedUnits: 12 });
    // Even an event that carried the attempt's error detail does not get it quoted.
    const data = {
      retryNumber: 1,
      reason: 'crashed' as const,
      completedUnits: 12,
      detail: 'TypeError: boom\n    at run (/app/dist/x.js:1:2) claude-opus-4-1',
    };
    const text = recoveryText(task, data);
    expect(text).toContain(
      'The original execution of your task "Build the spring campaign" stopped unexpectedly',
    );
    expect(text).toContain('the work resumed from the last completed step');
    expect(text).toContain('12 of 40 steps were complete; completed steps are not repeated.');
    expect(text).toContain('This is retry 1 of at most 4.');
    expect(text).not.toMatch(/opus|gemini|claude|TypeError|boom|\bat run\b|\.js/);
  });

  it('recovery counts the steps its event names, not the progress the next attempt made since', () => {
    // The demo shows the same event's count beside the notice (scripts/demo/recoveries.mjs).
    const task = taskRecord({ retryCount: 1, completedUnits: 15 });
    const text = recoveryText(task, { retryNumber: 1, reason: 'crashed', completedUnits: 12 });
    expect(text).toContain('12 of 40 steps were complete');
    expect(text).not.toContain('15 of 40');
  });

  it('human input carries the question and how to answer', () => {
    const draft = composeForEvent(
      taskEvent('task.waiting_on_human', { question: 'Which ad account?' }),
      taskRecord(),
    );
    expect(draft).toMatchObject({ kind: 'human_input', final: false });
    expect(draft!.text).toContain('Which ad account?');
    expect(draft!.text).toContain('POST /v1/tasks/tsk_fixture/input');
  });

  it('human input carries the absolute answer link when there is one', () => {
    const url = 'https://vigil.example.com/h/tsk_fixture.s3cret-token-value-xyz';
    const draft = composeForEvent(
      taskEvent('task.waiting_on_human', { question: 'Which ad account?' }),
      taskRecord(),
      { answerUrl: url },
    );
    expect(draft!.text).toContain(`Answer here: ${url}`);
    expect(draft!.text).toContain('Or send POST /v1/tasks/tsk_fixture/input');
  });

  it('completed lists the verified checks that passed, not the failed ones', () => {
    const text = completedText(
      taskRecord({
        status: 'completed',
        verification: {
          passed: true,
          at: 1,
          checks: [
            { check: 'all_steps_recorded', expected: 40, actual: 40, passed: true },
            {
              check: 'campaigns_exist',
              expected: 2,
              actual: 2,
              passed: true,
              detail: 'all 2 campaigns found exactly once',
            },
            { check: 'not_counted', expected: 1, actual: 0, passed: false },
          ],
        },
        result: { summary: 'All forty steps done.' },
      }),
    );
    expect(text).toContain('is complete, and the result was verified.');
    expect(text).toContain('all_steps_recorded (expected 40, found 40)');
    expect(text).toContain('campaigns_exist (all 2 campaigns found exactly once)');
    expect(text).not.toContain('not_counted');
    expect(text).toContain('Summary: All forty steps done.');
  });

  it('failed reads the structured failure: done, verified, external changes, duplicates, next steps', () => {
    // Typed as the Watcher writes it, so the wording cannot drift from FailureReporter's shape.
    const failure: StructuredFailure = {
      reason: 'policy_exhausted',
      detail: 'all 4 retries of the policy failed',
      completedUnits: 5,
      totalUnits: 9,
      verified: {
        checks: [
          {
            check: 'campaigns_exist',
            expected: 1,
            actual: 1,
            passed: true,
            detail: 'all 1 campaigns found exactly once',
          },
          { check: 'ads_attached', expected: 4, actual: 2, passed: false, detail: 'missing ads: Ad 3, Ad 4' },
        ],
        unavailable: [],
      },
      externalChanges: { counts: { campaign: 1, adset: 1 }, keys: ['campaign:0', 'adset:0:0'] },
      unresolvedWrites: ['ad:0:0:2'],
      duplicatesCreated: 0,
      retryHistory: [],
      nextSteps: ['Submit the remaining work as a new task, possibly with another retry policy.'],
    };
    const text = failedText(taskRecord({ status: 'failed', totalUnits: 9, failure }));
    expect(text).toContain('could not be finished: every retry its retry policy allows failed.');
    expect(text).toContain('5 of 9 steps were complete.');
    expect(text).toContain('verified: campaigns_exist (all 1 campaigns found exactly once)');
    expect(text).toContain('not met: ads_attached (missing ads: Ad 3, Ad 4)');
    expect(text).toContain('2 changes were made in external systems and exist: campaign:0, adset:0:0.');
    expect(text).toContain('1 write could not be confirmed either way: ad:0:0:2.');
    expect(text).toContain('No duplicates were created.');
    expect(text).toContain('What you can do next: Submit the remaining work as a new task');
    const withDuplicates = failedText(
      taskRecord({ status: 'failed', failure: { ...failure, duplicatesCreated: 2 } }),
    );
    expect(withDuplicates).toContain('2 duplicate objects were created');
    expect(
      failedText(
        taskRecord({ status: 'failed', failure: { ...failure, externalChanges: { counts: {}, keys: [] } } }),
      ),
    ).toContain('No changes were made in external systems.');
  });

  it.each([
    ['task.recovered', 'recovery', false],
    ['task.message', 'agent', false],
    ['task.waiting_on_human', 'human_input', false],
    ['task.paused', 'control', false],
    ['task.resumed', 'control', false],
    ['task.cancelled', 'control', true],
    ['task.completed', 'completed', true],
    ['task.failed', 'failed', true],
  ] as const)('%s becomes a %s message (final: %s)', (type, kind, final) => {
    const draft = composeForEvent(
      taskEvent(type, { kind: 'agent', text: 'Halfway there, all good.' }),
      taskRecord(),
    );
    expect(draft).toMatchObject({ kind, final });
    expect(draft!.text.length).toBeGreaterThan(10);
  });

  it.each(['task.created', 'task.started', 'task.progress', 'task.verifying'] as const)(
    '%s sends nothing by itself (progress goes out by time)',
    (type) => {
      expect(composeForEvent(taskEvent(type, { currentStep: 'x' }), taskRecord())).toBeNull();
    },
  );
});

describe('the completed message of a mission', () => {
  const verified = {
    status: 'completed' as const,
    verification: {
      passed: true,
      checks: [{ check: 'http_json', expected: 1, actual: 1, passed: true }],
      at: 2,
    },
    result: { summary: 'I did everything perfectly.' },
  };

  it('carries the report as its body, not the agent summary', () => {
    const task = taskRecord({ ...verified, kind: 'mission', title: 'File the ticket' });
    const report = '# File the ticket\n\n## Verification\n\n| http_json | 1 | 1 | pass |\n';
    const draft = composeForEvent(taskEvent('task.completed'), task, { report });
    expect(draft?.kind).toBe('completed');
    expect(draft?.text).toBe(
      `Your task "File the ticket" is complete, and the result was verified. The report below is built from what Vigil recorded (GET /v1/tasks/tsk_fixture/report).\n\n${report}`,
    );
    expect(draft?.text).not.toContain('Summary:');
  });

  it('leaves the other kinds’ completed message as it was, report or not', () => {
    const task = taskRecord({ ...verified, kind: 'noop' });
    const withReport = composeForEvent(taskEvent('task.completed'), task, { report: '# a report' });
    expect(withReport?.text).toBe(completedText(task));
    expect(withReport?.text).toContain('Checks that passed: http_json (expected 1, found 1).');
    expect(withReport?.text).toContain('Summary: I did everything perfectly.');
    expect(withReport?.text).not.toContain('# a report');
  });
});
