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

/** A deterministic exit-criterion check against the external system, never the Worker's claims. */
export type ExitCheck<Input = unknown> = (
  criterion: ExitCriterion,
  context: CheckContext<Input>,
) => Promise<CheckResult>;

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
  defaultExitCriteria(input: Input): ExitCriterion[];
  /** What the agent is asked to do, in words (the system prompt's task section). */
  instructions(input: Input): string;
  plan(input: Input): PlanStep[];
  tools: KindTool<Input>[];
  checks: Record<string, ExitCheck<Input>>;
}
