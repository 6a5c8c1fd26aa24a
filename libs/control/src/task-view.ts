import type { TaskRecord } from '@vigil/tasks';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The record as the API shows it: the design's field names, timestamps as ISO 8601. */
export function toTaskView(task: TaskRecord): Record<string, unknown> {
  return {
    id: task.id,
    tenantId: task.tenantId,
    conversationId: task.conversationId,
    parentId: task.parentId,
    kind: task.kind,
    kindVersion: task.kindVersion,
    title: task.title,
    input: task.input,
    status: task.status,
    statusReason: task.statusReason,
    attempt: task.attempt,
    model: task.model,
    provider: task.provider,
    currentStep: task.currentStep,
    completedUnits: task.completedUnits,
    totalUnits: task.totalUnits,
    lastHeartbeatAt: iso(task.lastHeartbeatAt),
    inFlight: task.inFlight
      ? { ...task.inFlight, since: iso(task.inFlight.since), deadlineAt: iso(task.inFlight.deadlineAt) }
      : null,
    loopLagMs: task.loopLagMs,
    lastVerifiedStep: task.lastVerifiedStep,
    sliceCount: task.sliceCount,
    consecutiveErrors: task.consecutiveErrors,
    retryCount: task.retryCount,
    retryHistory: task.retryHistory.map((entry) => ({ ...entry, at: iso(entry.at) })),
    exitCriteria: task.exitCriteria,
    verification: task.verification ? { ...task.verification, at: iso(task.verification.at) } : null,
    result: task.result,
    failure: task.failure,
    budgetUsd: task.budgetUsd,
    spentUsd: task.spentUsd,
    createdAt: iso(task.createdAt),
    startedAt: iso(task.startedAt),
    updatedAt: iso(task.updatedAt),
    finishedAt: iso(task.finishedAt),
    activeMs: task.activeMs + (task.activeSince === null ? 0 : Math.max(0, Date.now() - task.activeSince)),
    lastUserUpdateAt: iso(task.lastUserUpdateAt),
    recoveryOwner: task.recoveryOwner,
    recoveryLeaseExpiresAt: iso(task.recoveryLeaseExpiresAt),
    codeVersion: task.codeVersion,
    claim: task.claim,
    humanQuestion: task.humanQuestion,
    humanDeadlineAt: iso(task.humanDeadlineAt),
    archived: task.archived,
    children: task.children,
    sandbox: task.sandbox,
    notify: task.notify,
    agent: task.agent,
  };
}
