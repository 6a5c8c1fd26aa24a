import type { Schedule, ScheduleRun } from './schedule.types';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** A schedule as the API shows it; `nextFireAt` is its job scheduler's next due time (null when paused). */
export function toScheduleView(schedule: Schedule, nextFireAt?: number): Record<string, unknown> {
  return {
    id: schedule.id,
    tenantId: schedule.tenantId,
    name: schedule.name,
    cron: schedule.cron,
    timezone: schedule.timezone,
    overlap: schedule.overlap,
    catchUpMs: schedule.catchUpMs,
    task: schedule.task,
    state: schedule.state,
    createdAt: iso(schedule.createdAt),
    updatedAt: iso(schedule.updatedAt),
    nextFireAt: schedule.state === 'active' ? iso(nextFireAt) : null,
    lastFireAt: iso(schedule.lastFireTime),
    lastOutcome: schedule.lastOutcome ?? null,
    lastTaskId: schedule.lastTaskId ?? null,
  };
}

export function toRunView(run: ScheduleRun): Record<string, unknown> {
  return {
    fireTime: iso(run.fireTime),
    firedAt: iso(run.firedAt),
    trigger: run.trigger,
    outcome: run.outcome,
    taskId: run.taskId ?? null,
    previousTaskId: run.previousTaskId ?? null,
    reason: run.reason ?? null,
  };
}
