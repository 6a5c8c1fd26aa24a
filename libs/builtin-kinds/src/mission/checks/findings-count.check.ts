import { defineCheck } from '@vigil/kinds';
import type { MissionInput } from '../mission.input';
import { COUNTED_EXPECTATION, countedResult, unknownArguments } from './counting-check';

const MAX_PATTERN_CHARS = 200;

function titlePattern(args: Record<string, unknown> | undefined): RegExp | undefined {
  const source = args?.titleMatches;
  return typeof source === 'string' ? new RegExp(source) : undefined;
}

/**
 * `findings_count {expected: n, args?: {titleMatches?}}`: at least n findings were recorded (whose
 * title matches the regular expression, when given). Read from the runtime's record of findings,
 * so it proves the agent reported, not that what it reported is true: on its own it is evidence
 * only with `input.evidence: "findings_only"` (docs/missions.md, "The mission kind").
 */
export const findingsCountCheck = defineCheck<MissionInput>(
  {
    reads: [],
    ...COUNTED_EXPECTATION,
    validateArgs: (args) => {
      if (args === undefined) return [];
      const problems = unknownArguments('findings_count', args, ['titleMatches']);
      const source = args.titleMatches;
      if (source === undefined) return problems;
      if (typeof source !== 'string' || source.length === 0 || source.length > MAX_PATTERN_CHARS)
        return [
          ...problems,
          `args.titleMatches must be a regular expression of 1 to ${MAX_PATTERN_CHARS} characters`,
        ];
      try {
        new RegExp(source);
      } catch (error) {
        problems.push(`args.titleMatches is not a valid regular expression (${(error as Error).message})`);
      }
      return problems;
    },
  },
  async (criterion, context) => {
    const pattern = titlePattern(criterion.args);
    const matching = context.findings.filter((finding) => !pattern || pattern.test(finding.title));
    return countedResult(
      criterion,
      matching.length,
      (expected) =>
        `${matching.length} finding${matching.length === 1 ? '' : 's'}${pattern ? ` with a title matching /${pattern.source}/` : ''} recorded, ${expected} needed`,
    );
  },
);
