import type { TaskStatus } from './task-status';

export type FailureReason = 'timeout' | 'crashed' | 'tool_error' | 'failed_verification' | 'limit';

export interface RetryEntry {
  attempt: number;
  model: string;
  result: 'failed';
  reason: FailureReason;
  detail?: string;
  at: number;
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
}

export interface AgentOptions {
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
  title: string;
  input: unknown;
  status: TaskStatus;
  attempt: number;
  model: string;
  currentStep: string | null;
  completedUnits: number | null;
  totalUnits: number | null;
  lastHeartbeatAt: number | null;
  lastVerifiedStep: number;
  sliceCount: number;
  consecutiveErrors: number;
  /** Incremented by every script that changes the task's context (steps, outputs, findings). */
  contextVersion: number;
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
}
