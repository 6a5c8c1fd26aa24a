import type { VigilConfig } from '@vigil/config';
import type { ActionRecord, CheckResult, ExitCriterion } from '@vigil/tasks';

/** JSON Schema of a tool's arguments, as model APIs take it. */
export type JsonSchema = Record<string, unknown>;

/** What the runtime hands kinds so they never reach for globals. */
export interface KindServices {
  config: VigilConfig;
}

export interface ToolContext<Input = unknown> {
  taskId: string;
  attempt: number;
  input: Input;
  /** Saved outputs of earlier successful steps, by logical step key. */
  outputs: ReadonlyMap<string, unknown>;
  signal: AbortSignal;
  services: KindServices;
}

export interface KindTool<Input = unknown> {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** A write changes an external system and goes through the write journal. */
  effect: 'read' | 'write';
  /** This tool's call deadline, when it differs from TOOL_CALL_TIMEOUT_MS. */
  timeoutMs?: number;
  /** The logical step a call performs; throws ToolArgumentError for arguments that name none. */
  stepKey(args: Record<string, unknown>, input: Input): string;
  execute(args: Record<string, unknown>, context: ToolContext<Input>): Promise<unknown>;
  /** Writes: find the object in the external system; its result if it exists, otherwise null. */
  reconcile?(args: Record<string, unknown>, context: ToolContext<Input>): Promise<unknown>;
}

/** The plan of a kind: the tool calls that complete it, in order (the scripted provider walks it). */
export interface PlanStep {
  key: string;
  tool: string;
  args: Record<string, unknown>;
}

export interface CheckContext<Input = unknown> {
  taskId: string;
  input: Input;
  actions: ActionRecord[];
  doneSteps: ReadonlySet<string>;
  outputs: ReadonlyMap<string, unknown>;
  signal: AbortSignal;
  services: KindServices;
}

/** Runs one exit criterion against the external system or the runtime's record, never the Worker's claims. */
export type RunCheck<Input = unknown> = (
  criterion: ExitCriterion,
  context: CheckContext<Input>,
) => Promise<CheckResult>;

/**
 * What a check accepts as a criterion, fixed when the task is created (docs/ARCHITECTURE.md,
 * "Exit criteria"): the type of its `expected` and `args`, and what "at least as strict as the
 * kind's own criterion" means for it, so a caller can tighten a kind's criterion but never loosen it.
 */
export interface CheckRules<Input = unknown> {
  /**
   * What is wrong with `expected` for this input, each a phrase that completes "expected …"
   * ("must be an integer ≥ 0"); none when it is valid.
   */
  validateExpected(expected: unknown, input: Input): string[];
  /** What is wrong with `args` (undefined when absent), each a phrase naming the argument; none when valid. */
  validateArgs(args: Record<string, unknown> | undefined, input: Input): string[];
  /** Whether `requested` (any value) is at least as strict as `own`, the kind's own expected. */
  atLeastAsStrict(requested: unknown, own: unknown): boolean;
  /** The values at least as strict as `own`, in words: "an integer ≥ 36", "true". */
  atLeast(own: unknown): string;
}

/** A deterministic exit check: callable as the check, carrying the rules of its criteria. */
export type ExitCheck<Input = unknown> = RunCheck<Input> & CheckRules<Input>;

/** Declares an exit check: how it runs and what its criteria may say. */
export function defineCheck<Input>(rules: CheckRules<Input>, run: RunCheck<Input>): ExitCheck<Input> {
  const check: RunCheck<Input> = (criterion, context) => run(criterion, context);
  return Object.assign(check, {
    validateExpected: rules.validateExpected,
    validateArgs: rules.validateArgs,
    atLeastAsStrict: rules.atLeastAsStrict,
    atLeast: rules.atLeast,
  });
}

/** The check could not run (the external API is down): retried later, neither pass nor fail. */
export class CheckUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckUnavailableError';
  }
}

/** Arguments a model passed that name no step of this task: a tool error, recorded like any other. */
export class ToolArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolArgumentError';
  }
}

/**
 * A task kind is a plugin: its input contract, its plan and tools, and how completion is
 * verified. The runtime and the apps only ever talk to kinds through this interface.
 */
export interface TaskKind<Input = unknown> {
  name: string;
  /** class-validator DTO for `input`; unknown fields are refused. */
  inputClass: new () => object;
  /** Number of work units (plan steps) when known up front. */
  totalUnits(input: Input): number | null;
  defaultTitle(input: Input): string;
  /**
   * The kind's own exit criteria for this input: always part of the task's criteria, and a caller
   * may only tighten them (`resolveExitCriteria`). Each names one of `checks`.
   */
  defaultExitCriteria(input: Input): ExitCriterion[];
  /** What the agent is asked to do, in words (the system prompt's task section). */
  instructions(input: Input): string;
  plan(input: Input): PlanStep[];
  tools: KindTool<Input>[];
  /** The kind's exit checks by name, each declared with `defineCheck`. */
  checks: Record<string, ExitCheck<Input>>;
}
