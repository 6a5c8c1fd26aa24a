import type { NewTask } from '@vigil/tasks';

export function newNoopTask(overrides: Partial<NewTask> = {}): NewTask {
  return {
    tenantId: 'acme',
    kind: 'noop',
    title: 'noop task',
    input: { steps: 3 },
    exitCriteria: [{ check: 'all_steps_recorded', expected: 3 }],
    budgetUsd: 3,
    model: 'opus',
    totalUnits: 3,
    sandbox: true,
    notify: {},
    agent: {},
    codeVersion: 'test',
    ...overrides,
  };
}
