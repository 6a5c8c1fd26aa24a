import { noopKind } from '@vigil/builtin-kinds';
import { type TaskKind } from '@vigil/kinds';
import type { ActionRecord, SliceContext, TaskRecord } from '@vigil/tasks';
import { buildPrompt } from './prompt-builder';

const task = {
  id: 'tsk_prompt0001',
  title: 'noop task',
  input: { steps: 40 },
  totalUnits: 40,
  humanInput: null,
  humanQuestion: null,
  retryContext: null,
} as unknown as TaskRecord;

const action = (step: number, extra: Partial<ActionRecord>): ActionRecord =>
  ({
    step,
    attempt: 2,
    slice: 3,
    tool: 'noop_step',
    key: `step:${step}`,
    args: { index: step },
    startedAt: 0,
    durationMs: 1,
    ...extra,
  }) as ActionRecord;

const opening = (context: SliceContext): string => {
  const { messages } = buildPrompt(task, noopKind as TaskKind, context, '- all_steps_recorded: expected 40');
  return messages[0].content as string;
};

describe('the opening of a bounded slice', () => {
  it('shows the last actions of the log in full, errors included, newest last', () => {
    const text = opening({
      doneSteps: new Set(['step:0', 'step:1']),
      outputs: new Map(),
      findings: [],
      recentActions: [
        action(2, { result: { index: 1 } }),
        action(3, { error: 'ToolCallError: HTTP 503 Service Unavailable', key: null }),
      ],
    });
    expect(text).toContain("Last actions (from the runtime's log, newest last):");
    expect(text).toContain('- #2 noop_step {"index":2} (attempt 2) → result: {"index":1}');
    expect(text).toContain(
      '- #3 noop_step {"index":3} (attempt 2) → error: "ToolCallError: HTTP 503 Service Unavailable"',
    );
    expect(text.indexOf('#2')).toBeLessThan(text.indexOf('#3'));
  });

  it('keeps each shown action bounded, whatever the tool returned', () => {
    const huge = 'x'.repeat(50_000);
    const text = opening({
      doneSteps: new Set(),
      outputs: new Map(),
      findings: [],
      recentActions: [action(1, { args: { blob: huge }, result: { blob: huge } })],
    });
    expect(text.length).toBeLessThan(3_000);
  });

  it('says nothing of actions when none was recorded', () => {
    expect(opening({ doneSteps: new Set(), outputs: new Map(), findings: [] })).not.toContain('Last actions');
  });

  it('says a result or output cut to fit the opening was cut, and how to read it whole', () => {
    const long = { page: 'y'.repeat(5_000) };
    const text = opening({
      doneSteps: new Set(['step:1']),
      outputs: new Map([['step:1', long]]),
      findings: [],
      recentActions: [action(1, { result: long })],
    });
    const marker = `[cut: 600 of ${JSON.stringify(long).length} characters; read_output {"key":"step:1"} returns it whole]`;
    expect(text.split(marker)).toHaveLength(3);
  });
});
