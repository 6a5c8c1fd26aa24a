import { countRules } from '@vigil/kinds';
import { defineCheck, ToolArgumentError, type TaskKind } from '@vigil/kinds';
import { NoopInput } from './noop.input';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exercises the machinery without an external API: `steps` tool calls that only wait `stepMs`. */
export const noopKind: TaskKind<NoopInput> = {
  name: 'noop',
  inputClass: NoopInput,
  totalUnits: (input) => input.steps,
  defaultTitle: (input) => `noop: ${input.steps} steps`,
  defaultExitCriteria: (input) => [{ check: 'all_steps_recorded', expected: input.steps }],
  instructions: (input) =>
    `Call noop_step once for every index from 0 to ${input.steps - 1}, in order, then call finish_task.`,
  scriptedPlan: (input) =>
    Array.from({ length: input.steps }, (_, index) => ({
      key: `step:${index}`,
      tool: 'noop_step',
      args: { index },
    })),
  tools: [
    {
      name: 'noop_step',
      description: 'Performs one do-nothing step of a noop task.',
      parameters: {
        type: 'object',
        properties: { index: { type: 'integer', minimum: 0 } },
        required: ['index'],
        additionalProperties: false,
      },
      effect: 'read',
      stepKey: (args, input) => {
        const index = args.index;
        if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= input.steps) {
          throw new ToolArgumentError(`index must be an integer from 0 to ${input.steps - 1}`);
        }
        return `step:${index}`;
      },
      execute: async (args, context) => {
        await sleep(context.input.stepMs ?? 0, context.signal);
        return { index: args.index, done: true };
      },
    },
  ],
  checks: {
    // The action log is written by the runtime, never by the model: it is this kind's evidence.
    all_steps_recorded: defineCheck(
      { ...countRules((input: NoopInput) => input.steps, 'steps'), reads: ['doneSteps'] },
      async (criterion, context) => {
        const expected = Number(criterion.expected);
        const recorded = Array.from({ length: context.input.steps }, (_, i) => `step:${i}`).filter((key) =>
          context.doneSteps.has(key),
        ).length;
        return {
          check: criterion.check,
          expected,
          actual: recorded,
          passed: recorded === expected,
          ...(recorded === expected
            ? {}
            : { detail: `${expected - recorded} steps missing from the action log` }),
        };
      },
    ),
  },
};
