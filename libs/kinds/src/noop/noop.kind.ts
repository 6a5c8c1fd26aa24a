import type { TaskKind } from '../task-kind';
import { NoopInput } from './noop.input';

/** Exercises the machinery without an external API: `steps` tool calls that only wait `stepMs`. */
export const noopKind: TaskKind<NoopInput> = {
  name: 'noop',
  inputClass: NoopInput,
  totalUnits: (input) => input.steps,
  defaultTitle: (input) => `noop: ${input.steps} steps`,
  defaultExitCriteria: (input) => [{ check: 'all_steps_recorded', expected: input.steps }],
  checkNames: ['all_steps_recorded'],
};
