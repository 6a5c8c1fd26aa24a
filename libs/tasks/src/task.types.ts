import type { ProviderName } from '@vigil/config';
import type { TaskStatus } from './task-status';

/**
 * Why an attempt ended without completing (docs/ARCHITECTURE.md, "Stalls, diagnosed"): its Worker
 * process is gone (`crashed`), connected but silent (`frozen`), alive but a model or tool call
 * overran its deadline (`hung_call`), too many tool errors in a row (`tool_error`), its claim
 * failed the exit checks (`failed_verification`), a bound was reached (`limit`), or the agent
 * repeated one call or kept calling its model without progress (`looping`).
 */
export type FailureReason =
  'crashed' | 'frozen' | 'hung_call' | 'tool_error' | 'failed_verification' | 'limit' | 'looping';

export interface RetryEntry {
  attempt: number;
  model: string;
  /** Who actually ran the attempt (`scripted` for the offline agent). */
  provider: ProviderName | null;
  /** The Worker process that ran the attempt's last slice. */
  workerId?: string | null;
  result: 'failed';
  reason: FailureReason;
  detail?: string;
  /** What the attempt spent. */
  costUsd: number;
  at: number;
}

/** Why a task is paused or waiting. */
export type StatusReason =
  | 'user'
  | 'budget'
  | 'global_spend_limit'
  | 'human_input'
  | 'children'
  | 'unresolved_write'
  | 'archived'
  /** No live Worker runs the task's kind at its `kindVersion` (docs/kinds.md, "Versions"). */
  | 'kind_version_unavailable'
  | TenantLimitReason;

/**
 * The tenant's limits from the catalog: its day's money spent, all its running places taken, or
 * its fair share of the places held while another tenant waits (docs/operations.md, "Tenant limits").
 */
export type TenantLimitReason = 'tenant_daily_budget' | 'tenant_max_running' | 'tenant_fair_share';

/** The model or tool call a Worker has in flight, as its last heartbeat reported it. */
export interface InFlightCall {
  kind: 'model' | 'tool';
  name: string;
  since: number;
  deadlineAt: number;
}

export interface ExitCriterion {
  check: string;
  expected: unknown;
  args?: Record<string, unknown>;
}

export interface CheckResult {
  check: string;
  expected: unknown;
  actual: unknown;
  passed: boolean;
  detail?: string;
}

/**
 * The honest end of a task that could not finish, as the Watcher records it in `failure` and the
 * notifier words it: what was done and verified, what exists outside, what to do next.
 */
export interface StructuredFailure {
  reason: FailureReason | 'policy_exhausted';
  detail: string;
  completedUnits: number;
  totalUnits: number | null;
  verified: { checks: CheckResult[]; unavailable: { check: string; reason: string }[] };
  /** Completed external writes by kind of step (`adset`: 12), and their step keys. */
  externalChanges: { counts: Record<string, number>; keys: string[] };
  unresolvedWrites: string[];
  duplicatesCreated: number;
  retryHistory: RetryEntry[];
  nextSteps: string[];
}

export interface Verification {
  passed: boolean;
  checks: CheckResult[];
  at: number;
}

export interface ScriptedMisbehaviour {
  crashAtStep?: number;
  hangAtStep?: number;
  falseFinishAfter?: number;
  forgetProgress?: boolean;
  /**
   * A mission's scripted agent: turns, each one call `{tool, args}` or an array of calls made in
   * one model turn, tools named as in the mission's `tools` (validated by the kind at creation).
   */
  plan?: ScriptedTurn[];
}

export interface ScriptedCall {
  tool: string;
  args?: Record<string, unknown>;
}

export type ScriptedTurn = ScriptedCall | ScriptedCall[];

export interface AgentOptions {
  model?: string;
  policy?: string[];
  scripted?: ScriptedMisbehaviour;
}

export interface NotifyOptions {
  webhookUrl?: string;
}

/** The task record: the source of truth about a task, kept in Redis outside every Worker. */
export interface TaskRecord {
  id: string;
  tenantId: string;
  conversationId: string | null;
  parentId: string | null;
  kind: string;
  /** The kind's version when the task was created: only a Worker that can run it takes a slice. */
  kindVersion: number;
  title: string;
  input: unknown;
  status: TaskStatus;
  statusReason: StatusReason | null;
  attempt: number;
  model: string;
  /** Who runs the current attempt (`scripted` when the offline agent does). */
  provider: ProviderName | null;
  currentStep: string | null;
  completedUnits: number | null;
  totalUnits: number | null;
  lastHeartbeatAt: number | null;
  inFlight: InFlightCall | null;
  /** The Worker's event-loop lag at its last heartbeat (ms). */
  loopLagMs: number | null;
  lastVerifiedStep: number;
  sliceCount: number;
  consecutiveErrors: number;
  /** Incremented by every script that changes the task's context (steps, outputs, findings). */
  contextVersion: number;
  /** How many instructions the task was given while it ran (steer-task.lua; docs/api.md, "Steering"). */
  steerCount?: number;
  retryCount: number;
  retryHistory: RetryEntry[];
  exitCriteria: ExitCriterion[];
  verification: Verification | null;
  result: unknown;
  failure: unknown;
  budgetUsd: number;
  spentUsd: number;
  createdAt: number;
  startedAt: number | null;
  updatedAt: number;
  finishedAt: number | null;
  /** Time spent in active states (queued, running, waiting on a tool, verifying, retrying). */
  activeMs: number;
  /** When the current active period began (null while paused, waiting on a person or finished). */
  activeSince: number | null;
  lastUserUpdateAt: number | null;
  recoveryOwner: string | null;
  recoveryLeaseExpiresAt: number | null;
  codeVersion: string;
  sandbox: boolean;
  notify: NotifyOptions;
  agent: AgentOptions;
  workerId: string | null;
  /** What the next attempt is told about the last one (set by the Watcher on recovery). */
  retryContext: RetryContext | null;
  /** The Worker's completion claim: a claim, never completion. */
  claim: { summary: string; attempt: number; at: number } | null;
  humanQuestion: string | null;
  humanInput: string | null;
  /** The secret of the question's answer link (`/h/<task id>.<token>`); a new one per question. */
  humanToken?: string | null;
  humanDeadlineAt: number | null;
  archived: boolean;
  /** A parent's children (docs/missions.md, "Child missions"); null while it has none. */
  children: ChildCounts | null;
}

export interface ChildCounts {
  total: number;
  /** Holding one of the parent's MAX_PARALLEL_CHILDREN places: released and not ended. */
  running: number;
  done: number;
}

export interface RetryContext {
  retryNumber: number;
  reason: FailureReason;
  detail?: string;
  lastVerifiedStep: number;
  failedChecks?: CheckResult[];
  reconciled?: { key: string; found: boolean }[];
}

/** What a caller supplies to create a task; the rest is derived. */
export interface NewTask {
  tenantId: string;
  kind: string;
  title: string;
  input: unknown;
  exitCriteria: ExitCriterion[];
  budgetUsd: number;
  model: string;
  totalUnits: number | null;
  conversationId?: string;
  parentId?: string;
  sandbox: boolean;
  notify: NotifyOptions;
  agent: AgentOptions;
  codeVersion: string;
  /** The kind's version (docs/kinds.md, "Versions"); 1 when the kind declares none. */
  kindVersion?: number;
}
