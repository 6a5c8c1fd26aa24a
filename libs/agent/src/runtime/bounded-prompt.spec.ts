import { startSandbox, type RunningSandbox } from '@vigil/meta-sandbox';
import { type TaskKind } from '@vigil/kinds';
import { runPromptTask, type PromptRunResult } from '@vigil/testing';
import { campaignBuildDemoInput } from '@vigil/builtin-kinds/campaign-build/demo-input';
import { campaignBuildKind, noopKind } from '@vigil/builtin-kinds';

/**
 * Prompts that stay bounded (docs/models.md): whole tasks through the real SliceSession,
 * prompt builder, provider and SDK against fakes that bill as the providers document.
 */
const noop = noopKind as TaskKind;
const atStep = (run: PromptRunResult, step: number) => run.calls[step].usage;

describe('bounded prompts', () => {
  it.each(['anthropic', 'gemini'] as const)(
    '%s: the prompt of the call at step 1,000 is at most 1.3× the one at step 10 (uncached and whole)',
    async (provider) => {
      const run = await runPromptTask({ provider, kind: noop, input: { steps: 1_010 }, budgetUsd: 1_000 });
      expect(run.end).toBe('verifying');
      expect(run.calls).toHaveLength(1_011);
      // Each call asked for the step of its index (the fake walks the plan), so calls[n] is step n's.
      expect(run.calls[1_000].body).toBeDefined();
      const [early, late] = [atStep(run, 10), atStep(run, 1_000)];
      expect(late.uncached).toBeLessThanOrEqual(1.3 * early.uncached);
      expect(late.prompt).toBeLessThanOrEqual(1.3 * early.prompt);
      // The worst-case reservation measures the same bounded request, and never less than was billed.
      expect(run.promptBounds[1_000]).toBeLessThanOrEqual(1.3 * run.promptBounds[10]);
      run.calls.forEach((call, i) => expect(run.promptBounds[i]).toBeGreaterThanOrEqual(call.usage.prompt));
      // What the fake billed is what the real request body held: it names the ranges, not every key.
      const opening = JSON.stringify(
        provider === 'anthropic' ? run.calls[1_000].body.messages[0] : run.calls[1_000].body.contents[0],
      );
      expect(opening).toContain('Completed steps (994 of 1010): step:0–step:993 (994).');
    },
    60_000,
  );

  it('the prompt as it was before grows past that bound (the check above can fail)', async () => {
    const run = await runPromptTask({
      provider: 'anthropic',
      kind: noop,
      input: { steps: 1_010 },
      budgetUsd: 1_000,
      style: 'unbounded',
    });
    expect(atStep(run, 1_000).prompt).toBeGreaterThan(3 * atStep(run, 10).prompt);
  }, 60_000);

  it('read_output returns a saved output to the model and is recorded as a built-in', async () => {
    const run = await runPromptTask({
      provider: 'anthropic',
      kind: noop,
      input: { steps: 3 },
      next: (call) =>
        call < 2
          ? { name: 'noop_step', args: { index: call } }
          : call === 2
            ? { name: 'read_output', args: { key: 'step:1' } }
            : call === 3
              ? { name: 'read_output', args: { key: 'step:9' } }
              : call === 4
                ? { name: 'noop_step', args: { index: 2 } }
                : { name: 'finish_task', args: { summary: 'done' } },
    });
    expect(run.end).toBe('verifying');
    const results = run.calls[4].body.messages
      .flatMap((m: { content: Array<Record<string, unknown>> }) => m.content)
      .filter((b: Record<string, unknown>) => b.type === 'tool_result');
    expect(results[2]).toMatchObject({
      content: JSON.stringify({ key: 'step:1', output: { index: 1, done: true } }),
      is_error: false,
    });
    expect(results[3]).toMatchObject({ is_error: true });
    expect(String(results[3].content)).toContain('no saved output under step:9');
    expect(run.actions.filter((a) => a.tool === 'read_output')).toEqual([
      expect.objectContaining({ key: null, result: { key: 'step:1', output: { index: 1, done: true } } }),
      expect.objectContaining({ key: null, error: expect.stringContaining('step:9') }),
    ]);
    // Reads change nothing: still three completed steps.
    expect([...run.context.doneSteps].sort()).toEqual(['step:0', 'step:1', 'step:2']);
  });

  describe('the 134-step campaign build against the Meta sandbox', () => {
    let sb: RunningSandbox;
    beforeAll(async () => {
      sb = await startSandbox({ accessToken: 'sandbox-token' });
    });
    afterAll(() => sb.close());
    beforeEach(() => sb.sandbox.reset());

    it.each(['anthropic', 'gemini'] as const)(
      '%s: completes within the default $3 budget, charged exactly what the fake billed at the price table',
      async (provider) => {
        const run = await runPromptTask({
          provider,
          kind: campaignBuildKind as TaskKind,
          input: campaignBuildDemoInput(),
          env: { META_API_BASE_URL: sb.baseUrl },
        });
        expect(run.end).toBe('verifying');
        expect(run.context.doneSteps.size).toBe(134);
        expect(run.chargedUsd).toBeCloseTo(run.billedUsd, 9);
        expect(run.chargedUsd).toBeLessThan(3);
        const cached = run.calls.reduce((sum, call) => sum + call.usage.cacheRead, 0);
        expect(cached).toBeGreaterThan(0);
        if (provider === 'anthropic') {
          // At Opus list prices, with room to spare: the unbounded prompt cost $7.48 here.
          expect(run.chargedUsd).toBeLessThan(2);
          expect(run.calls.reduce((sum, call) => sum + call.usage.cacheWrite, 0)).toBeGreaterThan(0);
        }
      },
      60_000,
    );
  });
});
