import type { ExitCriterion } from '@vigil/tasks';
import type { FromSchema } from './schema/from-schema';
import { compileSchema } from './schema/schema-validator';
import type { JsonSchema, TaskKind } from './task-kind';

/**
 * A kind as `defineKind` takes it: five required members; the rest have defaults. `input` is the
 * one JSON Schema of the task's input: the API validates requests with it and every function
 * below is typed by it.
 */
export interface KindDefinition<S extends JsonSchema, Input = FromSchema<S>>
  extends
    Pick<
      TaskKind<Input>,
      | 'name'
      | 'version'
      | 'compatibleVersions'
      | 'instructions'
      | 'tools'
      | 'checks'
      | 'capabilities'
      | 'scriptedPlan'
      | 'toolsFor'
      | 'validateForTenant'
    >,
    Partial<Pick<TaskKind<Input>, 'totalUnits'>> {
  input: S;
  /**
   * The kind's own exit criteria, always part of a task's (a caller may only tighten them): a list
   * is checked against `checks` at load; a function of the input needs `exampleInput` for that.
   */
  exitCriteria?: ExitCriterion[] | ((input: Input) => ExitCriterion[]);
  /** An input the kind accepts: the registry derives the criteria and plan from it at load. */
  exampleInput?: Input;
  title?(input: Input): string;
}

/** A kind made by `defineKind`: its criteria when they do not depend on the input, for the load check. */
export type DefinedKind<Input> = TaskKind<Input> & {
  exampleInput?: Input;
  fixedExitCriteria?: readonly ExitCriterion[];
};

/**
 * Declares a task kind (docs/kinds.md, "Code kinds") in one call, the TaskKind the runtime
 * talks to filled in: title `<name> task`, no units known up front, the kind's own criteria as
 * given (none by default), no capabilities. Its input schema is compiled here, so a schema Ajv
 * cannot compile stops the module at load.
 */
export function defineKind<const S extends JsonSchema>(
  definition: KindDefinition<S>,
): DefinedKind<FromSchema<S>> {
  type Input = FromSchema<S>;
  compileSchema(definition.input, `task kind ${definition.name}: input`);
  const { input, exitCriteria = [], title, totalUnits, ...rest } = definition;
  const fixed = Array.isArray(exitCriteria) ? exitCriteria : undefined;
  return {
    ...rest,
    inputSchema: input,
    defaultTitle: title ?? (() => `${definition.name} task`),
    totalUnits: totalUnits ?? (() => null),
    defaultExitCriteria: (value: Input) =>
      typeof exitCriteria === 'function' ? exitCriteria(value) : exitCriteria.map((c) => ({ ...c })),
    ...(fixed ? { fixedExitCriteria: fixed } : {}),
  };
}
