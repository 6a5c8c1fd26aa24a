import { noopKind } from '@vigil/builtin-kinds';
import { type TaskKind } from '@vigil/kinds';
import type { TaskRecord } from '@vigil/tasks';
import { toAnthropicMessages } from '../models/anthropic.provider';
import { buildPrompt } from './prompt-builder';
import { SliceConversation } from './slice-conversation';
import { findingTitle, summariseKeys } from './step-summary';

describe('what the runtime says is done', () => {
  it('writes a short list in full and a long one as ranges with counts', () => {
    expect(summariseKeys([])).toBe('none yet');
    expect(summariseKeys(['step:10', 'step:0', 'step:2'])).toBe('step:0, step:2, step:10');
    const steps = Array.from({ length: 140 }, (_, i) => `step:${i}`);
    expect(summariseKeys(steps)).toBe('step:0–step:139 (140)');
    const build = [
      'campaign:0',
      ...Array.from({ length: 12 }, (_, j) => `adset:0:${j}`),
      ...Array.from({ length: 36 }, (_, k) => `creative:0:${Math.floor(k / 3)}:${k % 3}`),
    ];
    expect(summariseKeys(build)).toContain('adset:0:0–adset:0:11 (12)');
    expect(summariseKeys(build)).toContain('campaign:0');
    expect(summariseKeys(build)).toContain('creative:0:4:0–creative:0:4:2 (3)');
    // With the plan's keys, a run spans ad sets: nothing of its kind lies between them.
    const plan = [...build, 'creative:0:12:0'];
    expect(summariseKeys(build, plan)).toBe(
      'adset:0:0–adset:0:11 (12), campaign:0, creative:0:0:0–creative:0:11:2 (36)',
    );
    expect(
      summariseKeys(
        build.filter((key) => key !== 'creative:0:5:1'),
        plan,
      ),
    ).toContain('creative:0:0:0–creative:0:5:0 (16), creative:0:5:2–creative:0:11:2 (19)');
  });

  it('stays bounded whatever the keys: past 48 ranges the rest are counted', () => {
    const everyOther = Array.from({ length: 5_000 }, (_, i) => `step:${2 * i}`);
    const summary = summariseKeys(everyOther);
    expect(summary.length).toBeLessThan(600);
    expect(summary).toContain('and 4952 more keys in 4952 more ranges');
  });

  it('names a finding by its title or first line', () => {
    expect(findingTitle({ text: 'Ad set 3 was rejected\nbecause of targeting', attempt: 1 })).toBe(
      'Ad set 3 was rejected',
    );
    expect(findingTitle({ title: 'Budget', body: 'long' })).toBe('Budget');
    expect(findingTitle({ text: 'x'.repeat(500) })).toHaveLength(120);
  });

  it('opens a slice of a 1,400-step task in about the size of its first slice', () => {
    const task = { title: 'noop', input: { steps: 1_400 }, totalUnits: 1_400 } as unknown as TaskRecord;
    const context = (done: number) => ({
      doneSteps: new Set(Array.from({ length: done }, (_, i) => `step:${i}`)),
      outputs: new Map(Array.from({ length: done }, (_, i) => [`step:${i}`, { index: i, done: true }])),
      findings: Array.from({ length: done / 10 }, (_, i) => ({
        title: `finding ${i}`,
        body: 'detail '.repeat(50),
        attempt: 1,
        at: i,
      })),
    });
    const size = (done: number) => {
      const prompt = buildPrompt(task, noopKind as TaskKind, context(done), '- all_steps_recorded: 1400');
      return prompt.system.length + prompt.messages[0].content.length;
    };
    expect(size(1_390)).toBeLessThan(1.5 * size(10));
    const opening = buildPrompt(task, noopKind as TaskKind, context(1_390), '').messages[0];
    expect(opening).toMatchObject({ role: 'user', cacheBreakpoint: true });
    expect(opening.content).toContain('Completed steps (1390 of 1400): step:0–step:1389 (1390).');
    expect(opening.content).toContain(
      'Saved outputs (1390): one for each completed step. Read one with read_output',
    );
    expect(opening.content).toContain('- step:1389: {"index":1389,"done":true}');
    expect(opening.content).toContain('Findings (139, the latest 20, by title):\n- finding 119\n');
    expect(opening.content).not.toContain('detail');
    // The prompt as it was, for the bench's "before": every key.
    const before = buildPrompt(task, noopKind as TaskKind, context(1_390), '', 'unbounded').messages[0]
      .content;
    expect(before).toContain('step:0, step:1, step:2,');
    expect(before.length).toBeGreaterThan(10 * opening.content.length);
  });
});

describe('a slice conversation, trimmed', () => {
  const run = (trim: boolean, steps: number) => {
    const conversation = new SliceConversation(
      () => ({ system: 'sys', messages: [{ role: 'user', content: 'opening', cacheBreakpoint: true }] }),
      { trim },
    );
    for (let i = 0; i < steps; i++) {
      const call = { id: `toolu_${i}`, name: 'create_ad', args: { ad: i } };
      conversation.assistant(i === 0 ? 'x'.repeat(1_000) : '', [call]);
      if (i === 3) conversation.toolResult(call, false, { error: 'Meta said no\nat line 2' });
      else conversation.toolResult(call, true, { id: `ad_${i}`, detail: 'y'.repeat(500) }, `ad:0:0:${i}`);
    }
    return conversation.request([], new AbortController().signal).messages;
  };

  it('keeps the opening and the last four results in full, older ones as one line naming their output', () => {
    const messages = run(true, 10);
    expect(messages[0]).toMatchObject({ content: 'opening' });
    const results = messages.filter((m) => m.role === 'tool');
    expect(results).toHaveLength(10);
    expect(results.slice(0, 6).map((m) => m.content)).toEqual([
      '{"ok":true,"saved_as":"ad:0:0:0"}',
      '{"ok":true,"saved_as":"ad:0:0:1"}',
      '{"ok":true,"saved_as":"ad:0:0:2"}',
      '{"error":"Meta said no"}',
      '{"ok":true,"saved_as":"ad:0:0:4"}',
      '{"ok":true,"saved_as":"ad:0:0:5"}',
    ]);
    for (const m of results.slice(6)) expect(m.content).toContain('y'.repeat(500));
    const firstAssistant = messages.find((m) => m.role === 'assistant')!;
    expect(firstAssistant.content.length).toBeLessThanOrEqual(300);
    // Every tool_use still has its tool_result right after it.
    const wire = toAnthropicMessages(messages, true);
    for (let i = 1; i < wire.length; i += 2) {
      const uses = (wire[i].content as Array<{ type: string; id?: string }>).filter(
        (b) => b.type === 'tool_use',
      );
      const answers = wire[i + 1].content as Array<{ type: string; tool_use_id?: string }>;
      expect(answers.map((b) => b.tool_use_id)).toEqual(uses.map((b) => b.id));
    }
    expect(JSON.stringify(wire[0])).toContain('cache_control');
  });

  it('reads the same older turns from one call to the next, and keeps everything untrimmed when asked', () => {
    expect(JSON.stringify(run(true, 12).slice(0, 12))).toBe(JSON.stringify(run(true, 13).slice(0, 12)));
    const untrimmed = run(false, 10).filter((m) => m.role === 'tool');
    expect(untrimmed[0].content).toContain('y'.repeat(500));
  });
});
