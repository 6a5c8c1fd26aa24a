import { defineCheck } from '@vigil/kinds';
import type { MissionInput } from '../mission.input';

/**
 * `children_completed {expected: true}`: the task started children and every one of them ended
 * `completed` — verified by its own exit criteria, each child being a task with its own record
 * (docs/missions.md, "Child missions"). Read from the children's records by the Watcher.
 */
export const childrenCompletedCheck = defineCheck<MissionInput>(
  {
    reads: [],
    validateExpected: (expected) => (expected === true ? [] : ['must be true']),
    validateArgs: (args) =>
      args === undefined || Object.keys(args).length === 0 ? [] : ['children_completed takes no args'],
    atLeastAsStrict: (requested) => requested === true,
    atLeast: () => 'true',
  },
  async (criterion, context) => {
    const children = context.children ?? [];
    const notCompleted = children.filter((child) => child.status !== 'completed');
    const passed = children.length > 0 && notCompleted.length === 0;
    return {
      check: criterion.check,
      expected: true,
      actual: passed,
      passed,
      ...(passed
        ? {}
        : {
            detail:
              children.length === 0
                ? 'the task started no children'
                : `${notCompleted.length} of ${children.length} children not completed: ${notCompleted
                    .slice(0, 10)
                    .map((child) => `${child.id} (${child.status})`)
                    .join(', ')}`,
          }),
    };
  },
);
