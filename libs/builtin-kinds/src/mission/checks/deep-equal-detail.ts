import { isDeepStrictEqual } from 'node:util';
import type { CheckResult, ExitCriterion } from '@vigil/tasks';
import { valueAt } from './json-pointer';

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length <= 200 ? text : `${text.slice(0, 199)}…`;
};

/** The check's result from the value at `pointer` of `document`, compared with `expected` by deep equality. */
export function comparePointer(
  criterion: ExitCriterion,
  document: unknown,
  pointer: string,
  source: string,
): CheckResult {
  const at = valueAt(document, pointer);
  const actual = at.found ? at.value : null;
  const passed = at.found && isDeepStrictEqual(at.value, criterion.expected);
  return {
    check: criterion.check,
    expected: criterion.expected,
    actual,
    passed,
    ...(passed
      ? {}
      : {
          detail: at.found
            ? `${source} has ${show(actual)} at "${pointer}", expected ${show(criterion.expected)}`
            : `${source} has nothing at "${pointer}"`,
        }),
  };
}
