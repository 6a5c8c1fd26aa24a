import { defineCheck } from '../../task-kind';
import type { MissionInput } from '../mission.input';

export const CHILDREN_NOT_AVAILABLE =
  'child tasks are not available yet (issue 13 adds them), so children_completed cannot be used';

/**
 * `children_completed {expected: true}` is part of the mission's contract, but until child tasks
 * exist no criterion of it could ever pass: it is refused at creation with a message saying why,
 * instead of "no such check".
 */
export const childrenCompletedCheck = defineCheck<MissionInput>(
  {
    validateExpected: () => [],
    validateArgs: () => [CHILDREN_NOT_AVAILABLE],
    atLeastAsStrict: () => false,
    atLeast: () => 'true',
  },
  async (criterion) => ({
    check: criterion.check,
    expected: criterion.expected,
    actual: null,
    passed: false,
    detail: CHILDREN_NOT_AVAILABLE,
  }),
);
