import { DomainError, InvalidTaskInputError } from '@vigil/tasks';
import type { DefinedKind } from './define-kind';
import { EVERY_CHECKED_RECORD, type CheckedRecord, type TaskKind } from './task-kind';
import { KindModuleError, loadKindModule } from './kind-loader';
import { validateKindInput } from './validate-input';
import { versionProblems } from './kind-versions';

export class UnknownKindError extends DomainError {
  readonly kind = 'invalid';

  constructor(
    readonly kindName: string,
    readonly known: readonly string[] = [],
  ) {
    super(`unknown task kind "${kindName}"${known.length > 0 ? `; the kinds are ${known.join(', ')}` : ''}`);
  }
}

const RULES = ['validateExpected', 'validateArgs', 'atLeastAsStrict', 'atLeast'] as const;
const FUNCTIONS = ['totalUnits', 'defaultTitle', 'defaultExitCriteria', 'instructions'] as const;
const KIND_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A code kind may carry an input the registry derives its criteria and plan from at load, or
 * (made by `defineKind`) criteria that do not depend on the input.
 */
type LoadableKind = DefinedKind<unknown>;

/** Whether `value` can be constructed: a class (or a constructor function), not an arrow or an object. */
const isClass = (value: unknown): boolean =>
  typeof value === 'function' && typeof (value as { prototype?: unknown }).prototype === 'object';

function shapeProblems(kind: LoadableKind): string[] {
  const problems: string[] = versionProblems(kind);
  if (kind.inputClass === undefined) {
    if (!kind.inputSchema || typeof kind.inputSchema !== 'object')
      problems.push('inputClass (a class-validator DTO) or inputSchema (a JSON Schema) is required');
  } else if (!isClass(kind.inputClass)) problems.push('inputClass must be a class (a class-validator DTO)');
  else if (kind.inputSchema !== undefined) problems.push('inputClass and inputSchema: declare one of them');
  if (kind.scriptedPlan !== undefined && typeof kind.scriptedPlan !== 'function')
    problems.push('scriptedPlan must be a function');
  for (const name of FUNCTIONS)
    if (typeof kind[name] !== 'function') problems.push(`${name} must be a function`);
  if (!Array.isArray(kind.tools)) problems.push('tools must be an array');
  if (!kind.checks || typeof kind.checks !== 'object') problems.push('checks must be an object');
  const toolNames = new Set<string>();
  for (const [index, tool] of (Array.isArray(kind.tools) ? kind.tools : []).entries()) {
    const label = `tools[${index}]${typeof tool?.name === 'string' ? ` (${tool.name})` : ''}`;
    if (typeof tool?.name !== 'string' || !TOOL_NAME.test(tool.name))
      problems.push(`${label}: name must match [A-Za-z0-9_-]{1,64}`);
    else if (toolNames.has(tool.name)) problems.push(`${label}: a second tool of this name`);
    else toolNames.add(tool.name);
    if (tool?.effect !== 'read' && tool?.effect !== 'write')
      problems.push(`${label}: effect must be "read" or "write"`);
    if (typeof tool?.stepKey !== 'function' || typeof tool?.execute !== 'function')
      problems.push(`${label}: stepKey and execute must be functions`);
    if (typeof tool?.description !== 'string' || !tool?.parameters || typeof tool.parameters !== 'object')
      problems.push(`${label}: description (a string) and parameters (a JSON Schema) are required`);
  }
  for (const [name, check] of Object.entries(kind.checks ?? {})) {
    const missing = RULES.filter((rule) => typeof check?.[rule] !== 'function');
    if (typeof check !== 'function' || missing.length > 0)
      problems.push(
        `check ${name} must be declared with defineCheck (missing ${missing.join(', ') || 'the check itself'})`,
      );
    const reads: unknown = check?.reads;
    if (
      reads !== undefined &&
      (!Array.isArray(reads) || reads.some((part) => !EVERY_CHECKED_RECORD.includes(part as CheckedRecord)))
    )
      problems.push(`check ${name}: reads must be a list of ${EVERY_CHECKED_RECORD.join(', ')}`);
  }
  return problems;
}

/** Every criterion names one of the kind's checks. */
function criteriaProblems(kind: LoadableKind, criteria: readonly { check: string }[]): string[] {
  const checks = Object.keys(kind.checks);
  return criteria
    .filter((criterion) => !Object.hasOwn(kind.checks, criterion?.check))
    .map(
      (criterion) =>
        `its default criterion "${String(criterion?.check)}" names no check of the kind (its checks are ${checks.join(', ') || 'none'})`,
    );
}

/** With an example input: every default criterion names a declared check, every plan step a tool. */
function exampleProblems(kind: LoadableKind): string[] {
  if (kind.exampleInput === undefined)
    return kind.fixedExitCriteria ? criteriaProblems(kind, kind.fixedExitCriteria) : [];
  let input: unknown;
  try {
    input = validateKindInput(kind, kind.exampleInput);
  } catch (error) {
    const problems = error instanceof InvalidTaskInputError ? error.problems : [String(error)];
    return [`exampleInput is not a valid input: ${problems.join('; ')}`];
  }
  const criteria = kind.defaultExitCriteria(input);
  if (!Array.isArray(criteria)) return ['defaultExitCriteria must return an array'];
  const problems = criteriaProblems(kind, criteria);
  const tools = new Set(kind.tools.map((tool) => tool.name));
  for (const step of kind.scriptedPlan?.(input) ?? [])
    if (!tools.has(step.tool)) problems.push(`its plan calls "${step.tool}", which is not one of its tools`);
  return problems;
}

/**
 * The task kinds this process knows (docs/kinds.md, "Code kinds"): those it is given (the
 * built-in ones, from libs/builtin-kinds), then those of the modules VIGIL_KINDS names. Every kind is validated as it is registered, so a kind
 * that could never run stops the process at boot instead of failing its first task.
 */
export class KindRegistry {
  private readonly kinds = new Map<string, TaskKind>();

  /** `modules`: VIGIL_KINDS, each path resolved from `cwd`; a bad one throws KindModuleError. */
  constructor(kinds: readonly TaskKind[] = [], modules: readonly string[] = [], cwd = process.cwd()) {
    for (const kind of kinds) this.register(kind);
    for (const modulePath of modules) {
      for (const kind of loadKindModule(modulePath, cwd)) {
        try {
          this.register(kind, { requireExample: true });
        } catch (error) {
          throw new KindModuleError(modulePath, error instanceof Error ? error.message : String(error));
        }
      }
    }
  }

  /**
   * Refuses a kind whose name is taken or malformed, whose inputClass is not a class, whose checks
   * are not declared with `defineCheck`, or (given `exampleInput`) whose default criteria name a
   * check it lacks or whose plan calls a tool it lacks. Code kinds must carry `exampleInput`
   * unless their criteria are a fixed list (`defineKind`) and they offer no scripted plan.
   */
  register(kind: TaskKind, options: { requireExample?: boolean } = {}): void {
    const loadable = kind as LoadableKind;
    const name = typeof kind?.name === 'string' ? kind.name : String(kind?.name);
    if (!KIND_NAME.test(name)) throw new Error(`task kind "${name}": name must match [a-z][a-z0-9_]{0,63}`);
    if (this.kinds.has(name)) throw new Error(`task kind ${name} is registered twice`);
    const problems = shapeProblems(loadable);
    const derived = loadable.fixedExitCriteria === undefined || loadable.scriptedPlan !== undefined;
    if (problems.length === 0 && options.requireExample && loadable.exampleInput === undefined && derived)
      problems.push(
        'exampleInput is required: an input the kind accepts, to check its criteria and plan at load',
      );
    if (problems.length === 0) problems.push(...exampleProblems(loadable));
    if (problems.length > 0) throw new Error(`task kind ${name}: ${problems.join('; ')}`);
    this.kinds.set(name, kind);
  }

  get(name: string): TaskKind {
    const kind = this.kinds.get(name);
    if (!kind) throw new UnknownKindError(name, this.names());
    return kind;
  }

  names(): string[] {
    return [...this.kinds.keys()];
  }

  /** Every kind this process knows, in registration order. */
  all(): TaskKind[] {
    return [...this.kinds.values()];
  }
}
