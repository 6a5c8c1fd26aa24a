import { isDeepStrictEqual } from 'node:util';
import type { CheckRules } from '../task-kind';

/**
 * The usual rules of a check's criteria (docs/kinds.md, "Exit criteria"): the type of
 * `expected`, and what "at least as strict as the kind's own" means for that type.
 */

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 80 ? text : `${text.slice(0, 79)}…`;
};

/** `args` must be absent (or empty): the check takes no arguments. */
export function noArgs(args: Record<string, unknown> | undefined): string[] {
  return args === undefined || Object.keys(args).length === 0
    ? []
    : ['args must be absent: this check takes no arguments'];
}

/**
 * `expected` is a count: an integer from 0 to the most the input can yield (`most`, with `units`
 * naming what is counted). Stricter means higher; a count above the most could never pass.
 */
export function countRules<Input>(most: (input: Input) => number, units: string): CheckRules<Input> {
  return {
    validateExpected: (expected, input) => {
      if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 0)
        return ['must be an integer ≥ 0'];
      const max = most(input);
      return expected > max
        ? [`must be at most ${max}: the input has ${max} ${units}, so a higher count could never pass`]
        : [];
    },
    validateArgs: (args) => noArgs(args),
    atLeastAsStrict: (requested, own) =>
      typeof requested === 'number' &&
      Number.isSafeInteger(requested) &&
      typeof own === 'number' &&
      requested >= own,
    atLeast: (own) => `an integer ≥ ${show(own)}`,
  };
}

/** `expected` is true or false; when the kind's own is true, only true is as strict. */
export function flagRules<Input>(): CheckRules<Input> {
  return {
    validateExpected: (expected) => (typeof expected === 'boolean' ? [] : ['must be true or false']),
    validateArgs: (args) => noArgs(args),
    atLeastAsStrict: (requested, own) =>
      typeof requested === 'boolean' && (own !== true || requested === true),
    atLeast: (own) => (own === true ? 'true' : 'true or false'),
  };
}

/** `expected` is any JSON value; only an equal one is as strict as the kind's own. */
export function exactRules<Input>(
  validateArgs: CheckRules<Input>['validateArgs'] = noArgs,
): CheckRules<Input> {
  return {
    validateExpected: (expected) => (expected === undefined ? ['must be present'] : []),
    validateArgs,
    atLeastAsStrict: (requested, own) => isDeepStrictEqual(requested, own),
    atLeast: (own) => `exactly ${show(own)}`,
  };
}
