import { InvalidTaskInputError, type ExitCriterion } from '@vigil/tasks';
import {
  defineCheck,
  exactRules,
  KindRegistry,
  MAX_EXIT_CRITERIA,
  resolveExitCriteria,
  validateKindInput,
  type TaskKind,
} from '@vigil/kinds';
import { BUILT_IN_KINDS } from './built-in-kinds';
import { campaignBuildDemoInput } from './campaign-build/demo-input';
import { campaignBuildKind } from './campaign-build/campaign-build.kind';
import { noopKind } from './noop/noop.kind';
import type { NoopInput } from './noop/noop.input';

/** The problems resolveExitCriteria refused with (fails the test when it did not refuse). */
function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidTaskInputError) return error.problems;
    throw error;
  }
  throw new Error('expected the criteria to be refused');
}

describe('resolveExitCriteria', () => {
  const noop20: NoopInput = { steps: 20 };
  const noop = (requested?: ExitCriterion[]) => resolveExitCriteria(noopKind, noop20, requested);
  const campaign = validateKindInput(campaignBuildKind, campaignBuildDemoInput());
  const build = (requested?: ExitCriterion[]) => resolveExitCriteria(campaignBuildKind, campaign, requested);

  it("keeps the kind's own criteria when none or an empty list is sent", () => {
    expect(noop()).toEqual([{ check: 'all_steps_recorded', expected: 20 }]);
    expect(noop([])).toEqual([{ check: 'all_steps_recorded', expected: 20 }]);
    expect(build([])).toEqual(campaignBuildKind.defaultExitCriteria(campaign));
    expect(build([]).map((c) => [c.check, c.expected])).toEqual([
      ['campaigns_exist', 1],
      ['ad_sets_exist', 12],
      ['ads_attached', 36],
      ['all_objects_verified', true],
    ]);
  });

  it('refuses a lowered count, naming the criterion and the least it may be', () => {
    expect(problemsOf(() => noop([{ check: 'all_steps_recorded', expected: 3 }]))).toEqual([
      "exitCriteria[0] (all_steps_recorded): expected must be an integer ≥ 20 (noop's own criterion: it may be tightened, never loosened)",
    ]);
    const lowered = problemsOf(() =>
      build([
        { check: 'campaigns_exist', expected: 1 },
        { check: 'ads_attached', expected: 35 },
      ]),
    );
    expect(lowered).toHaveLength(1);
    expect(lowered[0]).toMatch(/^exitCriteria\[1\] \(ads_attached\): expected must be an integer ≥ 36 /);
  });

  it('refuses an expected of the wrong type instead of storing it', () => {
    for (const expected of ['abc', '20', 20.5, null, true, [20], { n: 20 }]) {
      expect(problemsOf(() => noop([{ check: 'all_steps_recorded', expected }]))).toEqual([
        expect.stringMatching(/^exitCriteria\[0\] \(all_steps_recorded\): expected must be an integer ≥ 20/),
      ]);
    }
    expect(problemsOf(() => build([{ check: 'all_objects_verified', expected: 'yes' }]))).toEqual([
      expect.stringMatching(/^exitCriteria\[0\] \(all_objects_verified\): expected must be true /),
    ]);
  });

  it('refuses loosening a flag: all_objects_verified stays true', () => {
    expect(problemsOf(() => build([{ check: 'all_objects_verified', expected: false }]))).toEqual([
      expect.stringMatching(/expected must be true \(campaign_build's own criterion/),
    ]);
  });

  it('refuses a count the input can never reach (it could only burn retries)', () => {
    expect(problemsOf(() => noop([{ check: 'all_steps_recorded', expected: 21 }]))).toEqual([
      'exitCriteria[0] (all_steps_recorded): expected must be at most 20: the input has 20 steps, so a higher count could never pass',
    ]);
  });

  it('refuses an unknown check, listing the checks the kind has', () => {
    expect(problemsOf(() => noop([{ check: 'ads_attached', expected: 1 }]))).toEqual([
      'exitCriteria[0] (ads_attached): noop has no check "ads_attached"; its checks are all_steps_recorded',
    ]);
    expect(problemsOf(() => build([{ check: 'toString', expected: 1 }]))[0]).toBe(
      'exitCriteria[0] (toString): campaign_build has no check "toString"; its checks are campaigns_exist, ad_sets_exist, ads_attached, all_objects_verified',
    );
  });

  it('refuses arguments to a check that takes none', () => {
    expect(
      problemsOf(() => noop([{ check: 'all_steps_recorded', expected: 20, args: { only: 'step:1' } }])),
    ).toEqual(['exitCriteria[0] (all_steps_recorded): args must be absent: this check takes no arguments']);
  });

  it('reports every problem at once, and bounds how many', () => {
    const problems = problemsOf(() =>
      build([
        { check: 'campaigns_exist', expected: 0 },
        { check: 'nope', expected: 1 },
        { check: 'ads_attached', expected: 'all' },
      ]),
    );
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'exitCriteria[0] (campaigns_exist)',
      'exitCriteria[1] (nope)',
      'exitCriteria[2] (ads_attached)',
    ]);
    const many = problemsOf(() =>
      resolveExitCriteria(
        noopKind,
        noop20,
        Array.from({ length: MAX_EXIT_CRITERIA }, (_, i) => ({ check: `c${i}`, expected: 1 })),
      ),
    );
    expect(many).toHaveLength(20);
    expect(many[19]).toBe('further problems are not listed');
  });

  it('refuses more criteria than it accepts without looking at them', () => {
    const huge = Array.from({ length: 40_000 }, () => ({ check: 'all_steps_recorded', expected: 20 }));
    expect(problemsOf(() => noop(huge))).toEqual([
      `exitCriteria must contain no more than ${MAX_EXIT_CRITERIA} elements (got 40000)`,
    ]);
  });

  it("accepts the kind's own expected or a tighter one, and stores each criterion once", () => {
    expect(noop([{ check: 'all_steps_recorded', expected: 20 }])).toEqual([
      { check: 'all_steps_recorded', expected: 20 },
    ]);
    expect(noop([{ check: 'all_steps_recorded', expected: 20, args: {} }])).toEqual([
      { check: 'all_steps_recorded', expected: 20 },
    ]);
    expect(build([{ check: 'all_objects_verified', expected: true }])).toEqual(
      campaignBuildKind.defaultExitCriteria(campaign),
    );
  });

  describe('with a kind whose check takes args and compares by equality', () => {
    const probe = defineCheck<NoopInput>(
      exactRules((args) => (typeof args?.url === 'string' ? [] : ['args.url must be a string'])),
      async (criterion) => ({
        check: criterion.check,
        expected: criterion.expected,
        actual: null,
        passed: false,
      }),
    );
    const kind = (own: ExitCriterion[]): TaskKind<NoopInput> => ({
      ...noopKind,
      name: 'probe_kind',
      defaultExitCriteria: () => own,
      checks: { probe },
    });

    it('adds a caller criterion beside the own one, keeps the own one when args differ, refuses a different expected', () => {
      const own = { check: 'probe', expected: 'ok', args: { url: 'a' } };
      const other = { check: 'probe', expected: 'other', args: { url: 'b' } };
      expect(resolveExitCriteria(kind([own]), noop20, [other])).toEqual([own, other]);
      expect(
        problemsOf(() => resolveExitCriteria(kind([own]), noop20, [{ ...own, expected: 'nope' }])),
      ).toEqual([expect.stringMatching(/^exitCriteria\[0\] \(probe\): expected must be exactly "ok" /)]);
      expect(
        problemsOf(() => resolveExitCriteria(kind([]), noop20, [{ check: 'probe', expected: 1 }])),
      ).toEqual(['exitCriteria[0] (probe): args.url must be a string']);
    });

    it('refuses a task that would have no criterion at all', () => {
      expect(problemsOf(() => resolveExitCriteria(kind([]), noop20, []))).toEqual([
        'exitCriteria: a probe_kind task needs at least one criterion, the evidence that it finished; its checks are probe',
      ]);
    });
  });
});

describe('KindRegistry', () => {
  it('lists the kinds it knows when asked for another', () => {
    expect(() => new KindRegistry(BUILT_IN_KINDS).get('teleport')).toThrow(
      'unknown task kind "teleport"; the kinds are noop, campaign_build',
    );
  });

  it('refuses at load a kind whose check declares no rules for its criteria', () => {
    const registry = new KindRegistry(BUILT_IN_KINDS);
    const bare = {
      ...noopKind,
      name: 'bare',
      checks: { all_steps_recorded: (async () => ({})) as unknown as TaskKind['checks'][string] },
    } as TaskKind;
    expect(() => registry.register(bare)).toThrow(
      /check all_steps_recorded must be declared with defineCheck/,
    );
  });
});
