import {
  FINDING_ARTIFACTS,
  FINDING_BODY_CHARS,
  FINDING_DATA_BYTES,
  FINDING_TITLE_CHARS,
  isArtifactId,
  type Finding,
} from '@vigil/tasks';
import type { ToolSpec } from '../models/model-provider';
import type { SubtaskArgs } from './child-tasks';

export const BUILTIN_TOOL_NAMES = [
  'record_finding',
  'message_user',
  'request_human_input',
  'finish_task',
  'read_output',
  'start_subtask',
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
    description:
      'Saves a result worth keeping for later slices and for the user, at once. The report is built from these.',
    parameters: {
      type: 'object',
      properties: {
        title: {
          type: 'string',
          description: 'A short title to list the finding by.',
          maxLength: FINDING_TITLE_CHARS,
        },
        body: { type: 'string', description: 'The finding, in words.', maxLength: FINDING_BODY_CHARS },
        data: { description: `Optional structured data (JSON, at most ${FINDING_DATA_BYTES} bytes).` },
        artifacts: {
          type: 'array',
          description:
            'Optional ids of artifacts this finding shows (an image a tool returned names its id: [image <id> …]).',
          items: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          maxItems: FINDING_ARTIFACTS,
        },
      },
      required: ['title', 'body'],
      additionalProperties: false,
    },
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
      'Reads the saved output of a completed step by its step key (as listed in the progress summary), in full: a long one in windows from `offset` (its answer gives the next). A read: changes nothing.',
    parameters: {
      type: 'object',
      properties: {
        key: { type: 'string', description: 'A step key, e.g. "step:3".', maxLength: 200 },
        offset: {
          type: 'integer',
          minimum: 0,
          description: 'Where to start, in characters of the output as JSON (default 0).',
        },
      },
      required: ['key'],
      additionalProperties: false,
    },
  },
];

/** A mission's built-in beside the others: a child mission (docs/missions.md, "Child missions"). */
export const START_SUBTASK_TOOL: ToolSpec = {
  name: 'start_subtask',
  description:
    'Starts a child mission with its own goal and exit criteria, run beside you (a few at a time). ' +
    'Several may be started in one turn; after the turn you wait until every child has ended, then ' +
    'continue with their results.',
  parameters: {
    type: 'object',
    properties: {
      title: { type: 'string', maxLength: 200 },
      goal: { type: 'string', description: 'What the child must achieve.', maxLength: 20_000 },
      tools: {
        type: 'array',
        items: { type: 'string' },
        description: 'Its tools, among yours (default: all of yours).',
      },
      exitCriteria: {
        type: 'array',
        items: { type: 'object' },
        description: 'Its exit criteria, as {check, expected, args?}.',
      },
      evidence: { type: 'string', enum: ['findings_only'] },
    },
    required: ['goal', 'exitCriteria'],
    additionalProperties: false,
  },
};

/** The built-ins of a slice whose prompt is not bounded (the prompts bench's "before"): no read_output. */
export const UNBOUNDED_BUILTIN_TOOLS: ToolSpec[] = BUILTIN_TOOLS.filter(
  (tool) => tool.name !== 'read_output',
);

export function stringArg(args: Record<string, unknown>, field: string, max = 4000): string {
  const value = args[field];
  if (typeof value !== 'string' || value.trim() === '')
    throw new Error(`${field} must be a non-empty string`);
  return value.slice(0, max);
}

/**
 * A `record_finding` call's finding as it is stored (docs/missions.md, "Findings"): title and
 * body cut to their bounds, `data` refused past FINDING_DATA_BYTES of JSON (the model is told).
 */
export function findingArg(args: Record<string, unknown>, attempt: number, at: number): Finding {
  const title = stringArg(args, 'title', FINDING_TITLE_CHARS);
  const body = stringArg(args, 'body', FINDING_BODY_CHARS);
  const artifacts = artifactsArg(args.artifacts);
  if (args.data === undefined) return { title, body, ...artifacts, attempt, at };
  const json = JSON.stringify(args.data);
  if (json === undefined || Buffer.byteLength(json) > FINDING_DATA_BYTES)
    throw new Error(
      `data must be JSON of at most ${FINDING_DATA_BYTES} bytes; put the rest in body or a tool's output`,
    );
  return { title, body, data: args.data, ...artifacts, attempt, at };
}

/** `record_finding`'s artifact ids, checked in form here; that each is the task's, by the session. */
function artifactsArg(value: unknown): { artifacts?: string[] } {
  if (value === undefined || value === null) return {};
  if (!Array.isArray(value) || !value.every(isArtifactId))
    throw new Error('artifacts must be an array of artifact ids (64 lowercase hex characters each)');
  if (value.length > FINDING_ARTIFACTS) throw new Error(`at most ${FINDING_ARTIFACTS} artifacts per finding`);
  return value.length ? { artifacts: [...new Set(value)] } : {};
}

function offsetArg(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new Error('offset must be a whole number of characters, 0 or more');
  return value;
}

/** A built-in call with its arguments checked: what the slice session acts on. */
export type BuiltinRequest =
  | { tool: 'record_finding'; finding: Finding }
  | { tool: 'message_user'; text: string }
  | { tool: 'request_human_input'; question: string }
  | { tool: 'finish_task'; summary: string }
  | { tool: 'read_output'; key: string; offset: number }
  | { tool: 'start_subtask'; subtask: SubtaskArgs };

function subtaskArg(args: Record<string, unknown>): SubtaskArgs {
  const goal = stringArg(args, 'goal', 20_000);
  if (!Array.isArray(args.exitCriteria))
    throw new Error('exitCriteria must be an array of {check, expected, args?}');
  if (args.title !== undefined && typeof args.title !== 'string') throw new Error('title must be a string');
  if (
    args.tools !== undefined &&
    !(Array.isArray(args.tools) && args.tools.every((t) => typeof t === 'string'))
  )
    throw new Error('tools must be an array of tool names');
  const known = new Set(['title', 'goal', 'tools', 'exitCriteria', 'agent', 'evidence', 'context']);
  const unknown = Object.keys(args).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`start_subtask takes no ${unknown.join(', ')}`);
  return {
    goal,
    exitCriteria: args.exitCriteria as unknown[],
    ...(args.title !== undefined ? { title: args.title as string } : {}),
    ...(args.tools !== undefined ? { tools: args.tools as string[] } : {}),
    ...(args.agent !== undefined ? { agent: args.agent } : {}),
    ...(args.evidence !== undefined ? { evidence: args.evidence } : {}),
    ...(args.context !== undefined ? { context: args.context } : {}),
  };
}

/** Checks a built-in call's arguments; throws (a tool error for the model) when they are wrong. */
export function parseBuiltin(
  name: BuiltinToolName,
  args: Record<string, unknown>,
  attempt: number,
  now = Date.now(),
): BuiltinRequest {
  switch (name) {
    case 'record_finding':
      return { tool: name, finding: findingArg(args, attempt, now) };
    case 'message_user':
      return { tool: name, text: stringArg(args, 'text') };
    case 'request_human_input':
      return { tool: name, question: stringArg(args, 'question') };
    case 'finish_task':
      return { tool: name, summary: stringArg(args, 'summary') };
    case 'read_output':
      return { tool: name, key: stringArg(args, 'key'), offset: offsetArg(args.offset) };
    case 'start_subtask':
      return { tool: name, subtask: subtaskArg(args) };
  }
}
