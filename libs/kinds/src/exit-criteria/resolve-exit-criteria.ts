import { isDeepStrictEqual } from 'node:util';
import { InvalidTaskInputError, type ExitCriterion } from '@vigil/tasks';
import type { ExitCheck, TaskKind } from '../task-kind';
import { boundedProblems } from '../validation/bounded-validation';

/** How many criteria a caller may send (the API's DTO refuses more before this runs). */
export const MAX_EXIT_CRITERIA = 32;

const argsOf = (criterion: ExitCriterion): Record<string, unknown> =>
  criterion.args && typeof criterion.args === 'object' ? criterion.args : {};

const sameArgs = (a: ExitCriterion, b: ExitCriterion): boolean => isDeepStrictEqual(argsOf(a), argsOf(b));

/** The criterion as stored: `args` only when it has any. */
function stored(criterion: ExitCriterion): ExitCriterion {
  const args = argsOf(criterion);
  return Object.keys(args).length > 0
    ? { check: criterion.check, expected: criterion.expected, args }
    : { check: criterion.check, expected: criterion.expected };
}

/**
 * The exit criteria a new task is created with (docs/kinds.md, "Exit criteria"): the kind's
 * own criteria for this input, each replaced by the caller's criterion of the same check and args
 * when that one is at least as strict, then the caller's other criteria. A caller can add criteria
 * and tighten an `expected`, never remove or loosen one; every criterion's `expected` and `args`
 * are validated by its check; a task always ends up with at least one criterion. Every problem is
 * reported at once (bounded), each naming the criterion: `exitCriteria[1] (ads_attached): …`.
 */
export function resolveExitCriteria<Input>(
  kind: TaskKind<Input>,
  input: Input,
  requested: readonly ExitCriterion[] = [],
): ExitCriterion[] {
  const checkNames = Object.keys(kind.checks);
  const checksInWords = `its checks are ${checkNames.join(', ')}`;
  if (requested.length > MAX_EXIT_CRITERIA)
    throw new InvalidTaskInputError([
      `exitCriteria must contain no more than ${MAX_EXIT_CRITERIA} elements (got ${requested.length})`,
    ]);
  const own = kind.defaultExitCriteria(input);
  const resolved = own.map(stored);
  const tightened = new Set<number>();
  const added: ExitCriterion[] = [];
  const problems: string[] = [];

  requested.forEach((criterion, index) => {
    const name = typeof criterion.check === 'string' ? criterion.check : String(criterion.check);
    const label = `exitCriteria[${index}] (${name})`;
    const check: ExitCheck<Input> | undefined = Object.hasOwn(kind.checks, name)
      ? kind.checks[name]
      : undefined;
    if (!check) {
      problems.push(`${label}: ${kind.name} has no check "${name}"; ${checksInWords}`);
      return;
    }
    const mine: string[] = check.validateArgs(criterion.args, input).map((p) => `${label}: ${p}`);
    const ownIndex = own.findIndex((o, i) => !tightened.has(i) && o.check === name && sameArgs(o, criterion));
    if (ownIndex >= 0 && !check.atLeastAsStrict(criterion.expected, own[ownIndex].expected)) {
      mine.push(
        `${label}: expected must be ${check.atLeast(own[ownIndex].expected)} (${kind.name}'s own criterion: it may be tightened, never loosened)`,
      );
    } else {
      mine.push(...check.validateExpected(criterion.expected, input).map((p) => `${label}: expected ${p}`));
    }
    problems.push(...mine);
    if (mine.length > 0) return;
    if (ownIndex >= 0) {
      tightened.add(ownIndex);
      resolved[ownIndex] = stored(criterion);
    } else if (![...resolved, ...added].some((c) => isDeepStrictEqual(c, stored(criterion)))) {
      added.push(stored(criterion));
    }
  });

  if (problems.length > 0) throw new InvalidTaskInputError(boundedProblems(problems));
  const criteria = [...resolved, ...added];
  if (criteria.length === 0)
    throw new InvalidTaskInputError([
      `exitCriteria: a ${kind.name} task needs at least one criterion, the evidence that it finished; ${checksInWords}`,
    ]);
  return criteria;
}
