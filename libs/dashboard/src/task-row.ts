import { TERMINAL_STATUSES, TaskRecord, TaskStatus } from '@vigil/tasks';

/** States in which a Worker is expected to beat: only there does an old heartbeat mean trouble. */
const BEATING_STATUSES: readonly TaskStatus[] = ['running', 'waiting_on_tool'];

/** One line of the task list, as an operator reads it (docs/operations.md, "The task dashboard"). */
export interface TaskRow {
  id: string;
  tenantId: string;
  title: string;
  kind: string;
  status: TaskStatus;
  statusReason: string | null;
  terminal: boolean;
  attempt: number;
  provider: string | null;
  model: string;
  currentStep: string | null;
  completedUnits: number | null;
  totalUnits: number | null;
  lastHeartbeatAt: number | null;
  heartbeatAgeMs: number | null;
  /** The heartbeat is older than STALE_AFTER_MS while a Worker should be beating. */
  stale: boolean;
  /** Whether the heartbeat's age matters in this state (the page turns it red past the limit). */
  watchHeartbeat: boolean;
  inFlight: { kind: string; name: string; since: number; ageMs: number; overdue: boolean } | null;
  retryCount: number;
  spentUsd: number;
  budgetUsd: number;
  codeVersion: string;
  createdAt: number;
  updatedAt: number;
}

/** The row of a task at `now`; `staleAfterMs` is the Watcher's STALE_AFTER_MS. */
export function toTaskRow(task: TaskRecord, now: number, staleAfterMs: number): TaskRow {
  const watchHeartbeat = BEATING_STATUSES.includes(task.status);
  const heartbeatAgeMs = task.lastHeartbeatAt === null ? null : Math.max(0, now - task.lastHeartbeatAt);
  return {
    id: task.id,
    tenantId: task.tenantId,
    title: task.title,
    kind: task.kind,
    status: task.status,
    statusReason: task.statusReason,
    terminal: TERMINAL_STATUSES.includes(task.status),
    attempt: task.attempt,
    provider: task.provider,
    model: task.model,
    currentStep: task.currentStep,
    completedUnits: task.completedUnits,
    totalUnits: task.totalUnits,
    lastHeartbeatAt: task.lastHeartbeatAt,
    heartbeatAgeMs,
    stale: watchHeartbeat && heartbeatAgeMs !== null && heartbeatAgeMs > staleAfterMs,
    watchHeartbeat,
    inFlight: task.inFlight
      ? {
          kind: task.inFlight.kind,
          name: task.inFlight.name,
          since: task.inFlight.since,
          ageMs: Math.max(0, now - task.inFlight.since),
          overdue: now > task.inFlight.deadlineAt,
        }
      : null,
    retryCount: task.retryCount,
    spentUsd: task.spentUsd,
    budgetUsd: task.budgetUsd,
    codeVersion: task.codeVersion,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
  };
}
