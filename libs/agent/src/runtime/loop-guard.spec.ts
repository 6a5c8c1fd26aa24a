import type { ActionRecord, SliceContext } from '@vigil/tasks';
import { callKey, LoopGuard, loopCountsOf, withLoopWarning } from './loop-guard';
import type { StepDone } from './step-ledger';

const limits = { loopRepeatLimit: 5, loopIdleCalls: 4 };
const context = (): SliceContext => ({
  doneSteps: new Set(['search:seen']),
  outputs: new Map(),
  findings: [],
});
const call = { id: 'c', name: 'search', args: {} };

/** A step of a successful read: `key` a new unit unless the context has it. */
const step = (args: Record<string, unknown>, key: string | null = 'search:seen'): StepDone => ({
  tool: 'search',
  args,
  outcome: { key, ok: true, result: { hits: 0 } },
  started: 0,
  call,
});

describe('callKey', () => {
  it('is the same for the same arguments in any key order, at every depth', () => {
    expect(callKey('search', { q: 'x', page: { n: 1, size: 10 } })).toBe(
      callKey('search', { page: { size: 10, n: 1 }, q: 'x' }),
    );
  });

  it('differs by tool, by any argument, by array order and by type', () => {
    const base = callKey('search', { q: 'x', tags: ['a', 'b'], n: 1 });
    expect(callKey('fetch', { q: 'x', tags: ['a', 'b'], n: 1 })).not.toBe(base);
    expect(callKey('search', { q: 'y', tags: ['a', 'b'], n: 1 })).not.toBe(base);
    expect(callKey('search', { q: 'x', tags: ['b', 'a'], n: 1 })).not.toBe(base);
    expect(callKey('search', { q: 'x', tags: ['a', 'b'], n: '1' })).not.toBe(base);
  });

  it('tells long arguments apart by their digest, and never takes one for short arguments', () => {
    const long = (tail: string) => ({ text: `${'x'.repeat(80)}${tail}` });
    expect(callKey('write', long('a'))).toBe(callKey('write', long('a')));
    expect(callKey('write', long('a'))).not.toBe(callKey('write', long('b')));
    expect(callKey('write', long('a'))).toMatch(/^write #[\w-]{22}$/);
    expect(callKey('write', { n: 1 })).toBe('write {"n":1}');
  });

  it('ignores an argument that is undefined, as the recorded JSON does', () => {
    expect(callKey('search', { q: 'x', page: undefined })).toBe(callKey('search', { q: 'x' }));
  });
});

describe('LoopGuard', () => {
  it('warns once at one short of LOOP_REPEAT_LIMIT and ends the attempt at the limit', () => {
    const guard = new LoopGuard({ loopRepeatLimit: 5, loopIdleCalls: 100 });
    const verdicts = Array.from({ length: 5 }, () => {
      guard.beforeModelCall();
      return guard.observe(step({ q: 'x' }), context());
    });
    expect(verdicts.slice(0, 3)).toEqual([{}, {}, {}]);
    expect(verdicts[3].warning).toMatch(
      /called search with these same arguments 4 times.*once more ends the attempt/,
    );
    expect(verdicts[4]).toEqual({
      end: {
        end: 'failed_attempt',
        reason: 'looping',
        detail: 'search was called 5 times with the same arguments {"q":"x"} (LOOP_REPEAT_LIMIT 5)',
      },
    });
  });

  it('counts only identical calls: one tool with different arguments is no loop, whatever it answers', () => {
    const guard = new LoopGuard({ loopRepeatLimit: 2, loopIdleCalls: 100 });
    for (let page = 0; page < 20; page++) {
      guard.beforeModelCall();
      expect(guard.observe(step({ q: 'x', page }, `search:${page}`), context())).toEqual({});
    }
    expect(guard.callsMade('search', { page: 3, q: 'x' })).toBe(1);
  });

  it('ends the attempt before the model call after LOOP_IDLE_CALLS calls without progress, warned once before', () => {
    const guard = new LoopGuard(limits);
    const warnings: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      expect(guard.beforeModelCall()).toBeUndefined();
      // Two calls of one model turn, neither a new unit: one idle model call.
      warnings.push(guard.observe(step({ q: `a${i}` }), context()).warning);
      warnings.push(guard.observe(step({ q: `b${i}` }), context()).warning);
    }
    expect(warnings.filter(Boolean)).toEqual([
      expect.stringMatching(/your last 3 model calls completed no new step.*one more without progress ends/),
    ]);
    expect(warnings.indexOf(warnings.find(Boolean))).toBe(4);
    expect(guard.beforeModelCall()).toEqual({
      end: 'failed_attempt',
      reason: 'looping',
      detail: '4 model calls in a row completed no new step and recorded no finding (LOOP_IDLE_CALLS 4)',
    });
  });

  it('starts the idle count again at a new unit or a finding, and notes the count on each idle step', () => {
    const guard = new LoopGuard(limits);
    guard.beforeModelCall();
    const idle = step({ q: 'a' });
    guard.observe(idle, context());
    expect(idle.idleCalls).toBe(1);
    guard.beforeModelCall();
    const fresh = step({ q: 'b' }, 'search:new');
    guard.observe(fresh, context());
    expect(fresh.idleCalls).toBeUndefined();
    guard.beforeModelCall();
    const finding: StepDone = {
      tool: 'record_finding',
      args: { title: 't' },
      outcome: { key: null, ok: true },
      started: 0,
      extra: { finding: { title: 't', body: 'b' } },
    };
    guard.observe(finding, context());
    expect(finding.idleCalls).toBeUndefined();
    expect(guard.counts().idleCalls).toBe(0);
  });

  it('does not count a failed model call as a call, only as a model call', () => {
    const guard = new LoopGuard({ loopRepeatLimit: 2, loopIdleCalls: 100 });
    for (let i = 0; i < 3; i++) {
      guard.beforeModelCall();
      const failed: StepDone = { tool: '(model)', args: {}, outcome: { key: null, ok: false }, started: 0 };
      expect(guard.observe(failed, context())).toEqual({});
    }
    expect(guard.counts()).toEqual({ calls: new Map(), idleCalls: 3 });
  });

  it("hands a slice's counts on to the next slice's guard without copying them", () => {
    const first = new LoopGuard({ loopRepeatLimit: 5, loopIdleCalls: 100 });
    const step: StepDone = { tool: 'search', args: { q: 'x' }, outcome: { key: null, ok: true }, started: 0 };
    first.beforeModelCall();
    first.observe(step, context());
    const left = first.counts();
    const next = new LoopGuard({ loopRepeatLimit: 5, loopIdleCalls: 100 }, left);
    next.beforeModelCall();
    next.observe(step, context());
    // One map from slice to slice: a long task's counts are not copied twice a slice.
    expect(next.counts().calls).toBe(left.calls);
    expect(next.callsMade('search', { q: 'x' })).toBe(2);
  });

  it('counts on from the counts of earlier slices', () => {
    const guard = new LoopGuard(limits, {
      calls: new Map([[callKey('search', { q: 'x' }), 4]]),
      idleCalls: 0,
    });
    expect(guard.observe(step({ q: 'x' }), context()).end).toMatchObject({ reason: 'looping' });
  });
});

describe('withLoopWarning', () => {
  it('adds the warning after a text result, or beside any other', () => {
    expect(withLoopWarning('3 hits', 'stop')).toBe('3 hits\n\nstop');
    expect(withLoopWarning({ hits: 3 }, 'stop')).toEqual({ result: { hits: 3 }, warning: 'stop' });
    expect(withLoopWarning({ hits: 3 }, undefined)).toEqual({ hits: 3 });
  });
});

describe('loopCountsOf', () => {
  const action = (attempt: number, args: Record<string, unknown>, idleCalls?: number): ActionRecord => ({
    step: 0,
    attempt,
    slice: 1,
    tool: 'search',
    key: null,
    args,
    startedAt: 0,
    durationMs: 0,
    ...(idleCalls ? { idleCalls } : {}),
  });

  async function* newestFirst(actions: ActionRecord[]): AsyncGenerator<ActionRecord> {
    for (let i = actions.length - 1; i >= 0; i--) yield actions[i];
  }

  it("counts the attempt's own calls again, from the log, and its idle calls from the newest action", async () => {
    const log = [
      action(1, { q: 'x' }),
      action(1, { q: 'x' }),
      action(2, { q: 'x' }),
      action(2, { q: 'x' }, 3),
    ];
    const counts = await loopCountsOf(2, log.slice(-3), () => newestFirst(log));
    expect(counts).toEqual({ calls: new Map([[callKey('search', { q: 'x' }), 2]]), idleCalls: 3 });
  });

  it("reads nothing for an attempt's first slice", async () => {
    const log = [action(1, { q: 'x' })];
    const read = jest.fn(() => newestFirst(log));
    expect(await loopCountsOf(2, log, read)).toEqual({ calls: new Map(), idleCalls: 0 });
    expect(read).not.toHaveBeenCalled();
  });
});
