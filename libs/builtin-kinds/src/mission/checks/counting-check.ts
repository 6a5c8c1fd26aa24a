import type { CheckResult, ExitCriterion } from '@vigil/tasks';

/**
 * What the checks that count something share: `expected` is an integer ≥ 1, and a request is at
 * least as strict as the kind's own when it asks for at least as many.
 */
export const COUNTED_EXPECTATION = {
  validateExpected: (expected: unknown): string[] =>
    typeof expected === 'number' && Number.isSafeInteger(expected) && expected >= 1
      ? []
      : ['must be an integer ≥ 1'],
  atLeastAsStrict: (requested: unknown, own: unknown): boolean =>
    typeof requested === 'number' && typeof own === 'number' && requested >= own,
  atLeast: (own: unknown): string => `an integer ≥ ${JSON.stringify(own)}`,
};

/** A problem for each argument the check does not take. */
export function unknownArguments(
  check: string,
  args: Record<string, unknown>,
  known: readonly string[],
): string[] {
  return Object.keys(args)
    .filter((name) => !known.includes(name))
    .map((name) => `args.${name} is not an argument of ${check} (it takes ${known.join(', ')})`);
}

/** The result of counting `actual` against the criterion's `expected`; `shortfall` says what fell short. */
export function countedResult(
  criterion: ExitCriterion,
  actual: number,
  shortfall: (expected: number) => string,
): CheckResult {
  const expected = Number(criterion.expected);
  const passed = actual >= expected;
  return {
    check: criterion.check,
    expected,
    actual,
    passed,
    ...(passed ? {} : { detail: shortfall(expected) }),
  };
}
