import type { ToolSpec } from '../models/model-provider';

export const BUILTIN_TOOL_NAMES = [
  'record_finding',
  'message_user',
  'request_human_input',
  'finish_task',
  'read_output',
] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

export function isBuiltinTool(name: string): name is BuiltinToolName {
  return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

const text = (description: string, field: string) => ({
  type: 'object',
  properties: { [field]: { type: 'string', description, maxLength: 4000 } },
  required: [field],
  additionalProperties: false,
});

/** Tools every task has; the runtime implements them, kinds add their own beside them. */
export const BUILTIN_TOOLS: ToolSpec[] = [
  {
    name: 'record_finding',
    description: 'Saves a fact worth keeping for later slices and for the user. Saved at once.',
    parameters: text('The finding, in one or two sentences.', 'text'),
  },
  {
    name: 'message_user',
    description: 'Sends the user a short message now (an interim result or a notice).',
    parameters: text('The message for the user.', 'text'),
  },
  {
    name: 'request_human_input',
    description:
      'Stops and waits for the user (a decision, a code, a missing detail). Ask one clear question.',
    parameters: text('The question for the user.', 'question'),
  },
  {
    name: 'finish_task',
    description:
      'Claims that the whole task is done. The claim is verified against the exit criteria before the task completes.',
    parameters: text('What was done, briefly.', 'summary'),
  },
  {
    name: 'read_output',
    description:
      'Reads the saved output of a completed step by its step key (as listed in the progress summary). A read: changes nothing.',
    parameters: {
      type: 'object',
      properties: { key: { type: 'string', description: 'A step key, e.g. "step:3".', maxLength: 200 } },
      required: ['key'],
      additionalProperties: false,
    },
  },
];

/** The built-ins of a slice whose prompt is not bounded (the prompts bench's "before"): no read_output. */
export const UNBOUNDED_BUILTIN_TOOLS: ToolSpec[] = BUILTIN_TOOLS.filter(
  (tool) => tool.name !== 'read_output',
);

export function stringArg(args: Record<string, unknown>, field: string): string {
  const value = args[field];
  if (typeof value !== 'string' || value.trim() === '')
    throw new Error(`${field} must be a non-empty string`);
  return value.slice(0, 4000);
}
