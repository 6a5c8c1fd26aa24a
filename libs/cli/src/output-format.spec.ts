import type { Task, TaskEventFrame } from '@vigil/client';
import { eventLines, progressOf } from './event-lines';
import { ModelText } from './model-text';
import { Printer } from './printer';
import { outcomeLines, progressBar, progressText, taskDetails, taskRows } from './task-format';

const frame = (
  type: string,
  data: Record<string, unknown> = {},
  extra: Partial<TaskEventFrame> = {},
): TaskEventFrame => ({
  id: '1-0',
  type,
  taskId: 'tsk_1',
  attempt: 2,
  at: '2026-01-01T00:00:00.000Z',
  status: 'running',
  from: 'queued',
  data,
  ...extra,
});

const task = (fields: Partial<Task>): Task => ({
  id: 'tsk_1',
  title: 'forty quick steps',
  kind: 'noop',
  status: 'running',
  attempt: 1,
  sliceCount: 1,
  spentUsd: 0,
  budgetUsd: 3,
  createdAt: '2026-01-02T03:04:05.678Z',
  ...fields,
});

function recording(tty: boolean, color = tty) {
  let out = '';
  let err = '';
  const printer = new Printer({
    tty,
    color,
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
  });
  return { printer, out: () => out, err: () => err };
}

describe('the CLI output', () => {
  it('words progress as done/total with the percentage, and draws a bar of fixed width', () => {
    expect(progressText(12, 40)).toBe('12/40 (30%)');
    expect(progressText(3, null)).toBe('3 done');
    expect(progressText(50, 40)).toBe('50/40 (100%)');
    expect(progressBar(1, 4, 8)).toBe('[██░░░░░░]');
    expect(progressBar(0, 0, 4)).toBe('[░░░░]');
  });

  it('lists tasks as aligned columns with no trailing spaces', () => {
    const rows = taskRows([
      task({ completedUnits: 12, totalUnits: 40 }),
      task({
        id: 'tsk_22',
        status: 'paused',
        statusReason: 'budget',
        title: 'x',
        completedUnits: 0,
        totalUnits: 3,
      }),
    ]);
    expect(rows).toEqual([
      'ID      STATUS           PROGRESS     KIND  CREATED               TITLE',
      'tsk_1   running          12/40 (30%)  noop  2026-01-02 03:04:05Z  forty quick steps',
      'tsk_22  paused (budget)  0/3 (0%)     noop  2026-01-02 03:04:05Z  x',
    ]);
    expect(taskRows([])).toEqual(['no tasks']);
  });

  it('ends a watch with the outcome: the verified checks and the result, or the failure and what to do next', () => {
    const completed = outcomeLines(
      task({
        status: 'completed',
        verification: {
          passed: true,
          checks: [{ check: 'all_steps_recorded', expected: 40, actual: 40, passed: true }],
        },
        result: { summary: 'done' },
      }),
    );
    expect(completed).toEqual([
      { text: 'completed after 1 attempt, 1 slice, $0.00, verified', tone: 'good' },
      { text: '  pass  all_steps_recorded  expected 40  actual 40', tone: 'good' },
      { text: 'result: {"summary":"done"}' },
    ]);
    const failed = outcomeLines(
      task({
        status: 'failed',
        attempt: 3,
        sliceCount: 2,
        spentUsd: 0.004,
        failure: {
          reason: 'limit',
          detail: 'TASK_MAX_SLICES (1) reached',
          nextSteps: ['Raise TASK_MAX_SLICES.'],
        },
      }),
    );
    expect(failed.map((line) => line.text)).toEqual([
      'failed after 3 attempts, 2 slices, $0.0040',
      'failure: limit: TASK_MAX_SLICES (1) reached',
      '  next: Raise TASK_MAX_SLICES.',
    ]);
    const waiting = outcomeLines(task({ status: 'waiting_on_human', humanQuestion: 'Which region first?' }));
    expect(waiting.map((line) => line.text)).toEqual([
      'waiting for a person: Which region first?',
      'answer with: vigil tasks answer tsk_1 "<your answer>"',
    ]);
  });

  it('shows a task field by field, leaving out what is empty', () => {
    const lines = taskDetails(
      task({
        completedUnits: 2,
        totalUnits: 4,
        currentStep: 'noop_step step:2',
        provider: 'scripted',
        model: 'opus',
      }),
    );
    expect(lines).toEqual([
      'id            tsk_1',
      'title         forty quick steps',
      'kind          noop',
      'status        running',
      'progress      2/4 (50%)',
      'current step  noop_step step:2',
      'attempt       1 (0 retries), 1 slice',
      'model         opus via scripted',
      'spent         $0.00 of $3.00',
      'created       2026-01-02 03:04:05Z',
    ]);
  });

  it('words the events a watcher should see, with the message the user received', () => {
    expect(eventLines(frame('task.progress', { completedUnits: 3, step: 3 }))).toEqual([]);
    expect(eventLines(frame('task.progress', { turnFailed: 'crashed', detail: 'worker gone' }))).toEqual([
      { text: 'attempt 2 failed: crashed (worker gone)', tone: 'warn' },
    ]);
    expect(
      eventLines(
        frame(
          'task.waiting_on_human',
          { question: 'Which region?' },
          {
            message: { kind: 'human_input', text: 'Your task needs an answer.' },
          },
        ),
      ),
    ).toEqual([
      { text: 'waiting for a person: Which region?', tone: 'warn' },
      { text: 'message (human_input): Your task needs an answer.' },
    ]);
    expect(eventLines(frame('task.message', { kind: 'agent', text: 'Halfway.' }))).toEqual([
      { text: 'message (agent): Halfway.' },
    ]);
    expect(progressOf(frame('task.progress', { completedUnits: '7', totalUnits: '9' }))).toEqual({
      completed: 7,
      total: 9,
    });
    expect(progressOf(frame('task.progress', {}))).toEqual({ completed: undefined, total: undefined });
  });

  it("prints the model's live text as whole lines, ending a line when the call changes", () => {
    const text = new ModelText();
    expect(text.add('c1', 'Reading the ')).toEqual([]);
    expect(text.add('c1', 'file.\nNext I')).toEqual(['model: Reading the file.']);
    expect(text.add('c2', 'Done.')).toEqual(['model: Next I']);
    expect(text.flush()).toEqual(['model: Done.']);
    expect(text.flush()).toEqual([]);
  });

  it('writes plain lines without a terminal: no escape sequence, no carriage return, no redrawn status', () => {
    const plain = recording(false);
    plain.printer.setStatus('[███░] 3/4 running');
    plain.printer.line({ text: 'completed', tone: 'good' });
    plain.printer.endStatus();
    plain.printer.warn('warning: VIGIL_API_KEY is not set');
    expect(plain.out()).toBe('completed\n');
    expect(plain.err()).toBe('warning: VIGIL_API_KEY is not set\n');
  });

  it('on a terminal keeps the status line at the bottom: cleared before each line, drawn again after it', () => {
    const tty = recording(true, false);
    tty.printer.setStatus('1/4');
    tty.printer.line('finding: x');
    tty.printer.setStatus('2/4');
    tty.printer.endStatus();
    expect(tty.out()).toBe('\r\x1b[K1/4\r\x1b[Kfinding: x\n1/4\r\x1b[K2/4\n');
    const coloured = recording(true, true);
    coloured.printer.line({ text: 'failed', tone: 'bad' });
    expect(coloured.out()).toBe('\x1b[31mfailed\x1b[0m\n');
  });
});
