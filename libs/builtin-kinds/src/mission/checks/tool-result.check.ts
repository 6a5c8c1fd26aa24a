import { callReadTool, ToolCallError, ToolNotAllowedError } from '@vigil/tools';
import { exactRules } from '@vigil/kinds';
import { CheckUnavailableError, defineCheck } from '@vigil/kinds';
import { coversTool, type MissionInput } from '../mission.input';
import { comparePointer } from './deep-equal-detail';
import { pointerProblem } from './json-pointer';

export interface ToolResultArgs {
  tool: string;
  arguments: Record<string, unknown>;
  pointer: string;
}

const ARGUMENT_NAMES = ['tool', 'arguments', 'pointer'];

/** The problems of a tool_result criterion's args; the tool must be one the mission may use. */
export function toolResultArgsProblems(
  args: Record<string, unknown> | undefined,
  input: MissionInput,
): string[] {
  if (!args) return ['args must be {tool, arguments, pointer}'];
  const problems = Object.keys(args)
    .filter((name) => !ARGUMENT_NAMES.includes(name))
    .map((name) => `args.${name} is not an argument of tool_result (it takes tool, arguments, pointer)`);
  if (typeof args.tool !== 'string' || args.tool.length === 0)
    problems.push('args.tool must name a read tool of the mission, e.g. "memory.read_graph"');
  else if (!coversTool(input?.tools ?? [], args.tool))
    problems.push(
      `args.tool ${args.tool} is not among the mission's tools (${(input?.tools ?? []).join(', ')})`,
    );
  if (
    args.arguments !== undefined &&
    (typeof args.arguments !== 'object' || args.arguments === null || Array.isArray(args.arguments))
  )
    problems.push("args.arguments must be an object (the read tool's arguments)");
  const pointer = pointerProblem(args.pointer);
  if (pointer) problems.push(`args.pointer ${pointer}`);
  return problems;
}

const argsOf = (args: Record<string, unknown> | undefined): ToolResultArgs => ({
  tool: String(args?.tool),
  arguments: (args?.arguments as Record<string, unknown> | undefined) ?? {},
  pointer: String(args?.pointer ?? ''),
});

/**
 * `tool_result {args: {tool, arguments, pointer}, expected}`: the Watcher calls a read tool of the
 * catalog itself and compares the value at the JSON Pointer of its raw result (MCP: the
 * CallToolResult; HTTP: the response body) with `expected`. The external system's answer, never
 * the agent's. Creation refuses a write tool (a check must change nothing): see mission.creation.ts.
 */
export const toolResultCheck = defineCheck<MissionInput>(
  // Calls a read tool, none of the runtime's record (CheckRules.reads).
  { ...exactRules<MissionInput>((args, input) => toolResultArgsProblems(args, input)), reads: [] },
  async (criterion, context) => {
    const args = argsOf(criterion.args);
    const failed = (detail: string) => ({
      check: criterion.check,
      expected: criterion.expected,
      actual: null,
      passed: false,
      detail,
    });
    try {
      const output = await callReadTool(context.services.tools, context.tenantId, args.tool, args.arguments, {
        signal: context.signal,
      });
      return comparePointer(criterion, output.raw, args.pointer, `${args.tool}'s result`);
    } catch (error) {
      // A refused or failed read is a failed check, retried with what was missing: bounded by the
      // retry policy, where "unavailable" would wait for it until the task's clock ran out.
      if (error instanceof ToolNotAllowedError || error instanceof ToolCallError)
        return failed(`${args.tool}: ${error.message}`);
      throw new CheckUnavailableError(`${args.tool} could not be called: ${String(error)}`);
    }
  },
);
