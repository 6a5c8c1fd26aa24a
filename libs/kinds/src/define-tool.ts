import type { FromSchema } from './schema/from-schema';
import { compileSchema } from './schema/schema-validator';
import { ToolArgumentError, type JsonSchema, type KindTool, type ToolContext } from './task-kind';

/** A tool as `defineTool` takes it: `parameters` is the one schema of its arguments. */
export interface ToolDefinition<S extends JsonSchema, Input> extends Omit<
  KindTool<Input>,
  'parameters' | 'stepKey' | 'execute' | 'reconcile'
> {
  parameters: S;
  stepKey(args: FromSchema<S>, input: Input): string;
  execute(args: FromSchema<S>, context: ToolContext<Input>): Promise<unknown>;
  reconcile?(args: FromSchema<S>, context: ToolContext<Input>): Promise<unknown>;
}

/**
 * Declares a tool from one JSON Schema of its arguments (docs/kinds.md, "Code kinds"): the
 * model is shown the schema, the arguments are checked against it before `stepKey`, `execute` and
 * `reconcile` see them (arguments that break it are a ToolArgumentError, a tool error the model
 * can correct), and those functions are typed by it.
 */
export function defineTool<const S extends JsonSchema, Input = unknown>(
  definition: ToolDefinition<S, Input>,
): KindTool<Input> {
  const check = compileSchema(definition.parameters, `tool ${definition.name}: parameters`);
  const valid = (args: Record<string, unknown>): FromSchema<S> => {
    const problems = check(args, 'arguments');
    if (problems.length > 0) throw new ToolArgumentError(problems.join('; '));
    return args as FromSchema<S>;
  };
  const { stepKey, execute, reconcile, ...rest } = definition;
  const tool: KindTool<Input> = {
    ...rest,
    stepKey: (args, input) => stepKey(valid(args), input),
    execute: async (args, context) => execute(valid(args), context),
  };
  if (reconcile) tool.reconcile = async (args, context) => reconcile(valid(args), context);
  return tool;
}
