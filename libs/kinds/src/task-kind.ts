import type { ModelName, VigilConfig } from '@vigil/config';
import { DomainError } from '@vigil/tasks';
import type {
  ActionRecord,
  AgentOptions,
  ArtifactEntry,
  CheckResult,
  ExitCriterion,
  Finding,
} from '@vigil/tasks';
import type { ToolBinary, ToolGateway } from '@vigil/tools';

/** JSON Schema of a tool's arguments, as model APIs take it. */
export type JsonSchema = Record<string, unknown>;

/**
 * What a kind may read of the configuration: the settings kinds use (the Graph API's base URL and
 * token, whether checks may reach private addresses, the tool-call deadline, which models can run),
 * never the API keys, the model keys or the webhook secret (docs/kinds.md, "Code kinds").
 */
export interface KindConfig extends Readonly<
  Pick<
    VigilConfig,
    'metaApiBaseUrl' | 'metaAccessToken' | 'toolsAllowPrivate' | 'toolCallTimeoutMs' | 'firstModel'
  >
> {
  /** The models whose API key is set: whether a model can run, never its key. */
  readonly modelsWithKeys: readonly ModelName[];
}

/** What the runtime hands kinds so they never reach for globals. */
export interface KindServices {
  config: KindConfig;
  /** The tools from outside (the operator's catalog, VIGIL_TOOLS), as every app sees them. */
  tools: ToolGateway;
}

/** The task a kind resolves its per-task tools for (`toolsFor`). */
export interface KindTaskRef<Input = unknown> {
  id: string;
  tenantId: string;
  input: Input;
}

/** What a kind's creation hook sees of the request beside the validated input. */
export interface KindCreation {
  agent?: AgentOptions;
  /** The criteria the task would be created with (the kind's own and the caller's, resolved). */
  exitCriteria: ExitCriterion[];
}

export interface ToolContext<Input = unknown> {
  taskId: string;
  attempt: number;
  input: Input;
  /** Saved outputs of earlier successful steps, by logical step key. */
  outputs: ReadonlyMap<string, unknown>;
  signal: AbortSignal;
  services: KindServices;
  /** The external system reported progress on the call in flight: counts as a heartbeat. */
  onProgress?: () => void;
  /** W3C `traceparent` of the call's span when traces are on: sent with outgoing requests (docs/observability.md). */
  traceparent?: string;
}

/**
 * A tool's result in two parts: what is saved as the step's output (and journalled for a write),
 * and what the model is shown of it. A tool returning anything else has that value as both.
 * `binaries`: the bytes of the images and files `saved` refers to as `{artifact: {...}}`, which the
 * Worker keeps in the object store (docs/api.md, "Artifacts").
 */
export class ToolOutput {
  constructor(
    readonly saved: unknown,
    readonly shown: string,
    readonly binaries?: readonly ToolBinary[],
    /** The session of the stateful server that answered (KindTool.statefulServer). */
    readonly session?: string,
  ) {}
}

export interface KindTool<Input = unknown> {
  /** As models see it (`[A-Za-z0-9_-]{1,64}`). */
  name: string;
  /** As the task names it, when that differs from `name` (a mission's `files.write_file`). */
  taskName?: string;
  description: string;
  parameters: JsonSchema;
  /** A write changes an external system and goes through the write journal. */
  effect: 'read' | 'write';
  /**
   * A write whose repeat has no further effect (MCP `idempotentHint`): when its outcome is unknown
   * and it cannot be reconciled, it is made again instead of waiting for a person.
   */
  repeatableWrite?: boolean;
  /** This tool's call deadline, when it differs from TOOL_CALL_TIMEOUT_MS. */
  timeoutMs?: number;
  /**
   * The tool's server holds state a restart loses (docs/missions.md, "Stateful tool servers"):
   * its name, and the session this process holds with it now (null: none yet).
   */
  statefulServer?: { name: string; session(): string | null };
  /** The logical step a call performs; throws ToolArgumentError for arguments that name none. */
  stepKey(args: Record<string, unknown>, input: Input): string;
  execute(args: Record<string, unknown>, context: ToolContext<Input>): Promise<unknown>;
  /** Writes: find the object in the external system; its result if it exists, otherwise null. */
  reconcile?(args: Record<string, unknown>, context: ToolContext<Input>): Promise<unknown>;
}

/** A planned tool call: the scripted driver walks a plan's steps in order. */
export interface PlanStep {
  key: string;
  tool: string;
  args: Record<string, unknown>;
  /** Steps of one model turn share it: the scripted agent issues them in one reply. */
  turn?: number;
  /**
   * The n-th time (2, 3, …) a plan makes this very call (tool and arguments): done once the attempt
   * has made the call n times, so a scripted agent can repeat a call as a looping model would.
   */
  repeat?: number;
}

export interface CheckContext<Input = unknown> {
  taskId: string;
  tenantId: string;
  input: Input;
  /** What the agent recorded with `record_finding`, oldest first. */
  findings: readonly Finding[];
  actions: ActionRecord[];
  doneSteps: ReadonlySet<string>;
  outputs: ReadonlyMap<string, unknown>;
  signal: AbortSignal;
  services: KindServices;
  /** The task's children, oldest first (docs/missions.md, "Child missions"); absent: none read. */
  children?: readonly { id: string; title: string; status: string }[];
  /** The task's artifact list, oldest first (docs/api.md, "Artifacts"); absent: none read. */
  artifacts?: readonly ArtifactEntry[];
}

/**
 * The parts of the runtime's record a check may read beyond the task's input and findings. The
 * Watcher loads, for a task's checks, only the parts they declare (`CheckRules.reads`): an action
 * log, a done set and saved outputs as long as the task, read for every task it verifies.
 */
export type CheckedRecord = 'actions' | 'doneSteps' | 'outputs' | 'artifacts';

/** What a check that declares no `reads` is given: every part. */
export const EVERY_CHECKED_RECORD: readonly CheckedRecord[] = [
  'actions',
  'doneSteps',
  'outputs',
  'artifacts',
];

/** Runs one exit criterion against the external system or the runtime's record, never the Worker's claims. */
export type RunCheck<Input = unknown> = (
  criterion: ExitCriterion,
  context: CheckContext<Input>,
) => Promise<CheckResult>;

/**
 * What a check accepts as a criterion, fixed when the task is created (docs/kinds.md,
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
  /**
   * The parts of the record the check reads (docs/kinds.md, "Exit criteria"); a part it reads
   * without declaring throws. Absent: every part, as a kind that does not say is given.
   */
  reads?: readonly CheckedRecord[];
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
    reads: rules.reads,
  });
}

/** The check could not run (the external API is down): retried later, neither pass nor fail. */
export class CheckUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckUnavailableError';
  }
}

/**
 * A task that could not make progress without a model: no model key is set and the request
 * carries no scripted plan. A 422: the request is well formed, the deployment cannot run it.
 */
export class ModelRequiredError extends DomainError {
  readonly kind = 'unprocessable';
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
  /**
   * The kind's version, an integer ≥ 1 (default 1), recorded by every task created with it
   * (docs/kinds.md, "Versions"): raise it when a parked task of the older code could not continue.
   */
  version?: number;
  /** The older versions whose tasks this code can continue; a task of any other waits for a Worker that can. */
  compatibleVersions?: number[];
  /**
   * How `input` is validated, one of the two: a class-validator DTO (unknown fields are refused),
   * or a JSON Schema (`defineKind`'s `input`, checked with Ajv).
   */
  inputClass?: new () => object;
  inputSchema?: JsonSchema;
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
  /** The kind's fixed tools; a kind whose tools depend on the task adds them with `toolsFor`. */
  tools: KindTool<Input>[];
  /**
   * The tools of one task beside `tools` (a mission's, from the catalog, allow list checked again):
   * resolved once per slice by the Worker, and by the Watcher to reconcile writes and run checks.
   */
  toolsFor?(task: KindTaskRef<Input>, services: KindServices): Promise<KindTool<Input>[]>;
  /**
   * Checks at creation what needs the tenant or the outside world (its tools in the catalog, the
   * criteria that name them, what an offline run needs); throws a DomainError the API maps to HTTP.
   */
  validateForTenant?(
    input: Input,
    tenantId: string,
    services: KindServices,
    creation: KindCreation,
  ): Promise<void>;
  /** The kind's exit checks by name, each declared with `defineCheck`. */
  checks: Record<string, ExitCheck<Input>>;
  /** What the runtime may let this kind's tasks do beyond calling tools; none by default. */
  capabilities?: KindCapabilities;
  /**
   * A plan the kind offers the scripted driver (no model): the calls that complete this input, in
   * order; it also orders the step summary of the prompt. Without it the scripted driver plays the
   * task's `agent.scripted.plan` (docs/models.md, "The scripted agent is a driver").
   */
  scriptedPlan?(input: Input): PlanStep[];
}

export interface KindCapabilities {
  /** Its agent may start child tasks (`start_subtask`, docs/missions.md, "Child missions"). */
  startsChildren?: boolean;
}

/** Whether `kind` declares that its tasks may start children. */
export const startsChildren = (kind: Pick<TaskKind, 'capabilities'>): boolean =>
  kind.capabilities?.startsChildren === true;
