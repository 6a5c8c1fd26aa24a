import type { CreateTaskDto } from '@vigil/control';

export const OVERLAP_POLICIES = ['skip', 'allow', 'cancel_previous'] as const;
/** What a fire does while the task of the fire before is unfinished (docs/schedules.md, "Overlap"). */
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

export const SCHEDULE_STATES = ['active', 'paused'] as const;
export type ScheduleState = (typeof SCHEDULE_STATES)[number];

/** What a schedule was made with; it never changes. */
export interface ScheduleSpec {
  name: string;
  cron: string;
  timezone: string;
  task: CreateTaskDto;
  overlap: OverlapPolicy;
  catchUpMs: number;
}

export interface Schedule extends ScheduleSpec {
  id: string;
  tenantId: string;
  state: ScheduleState;
  createdAt: number;
  updatedAt: number;
  lastTaskId?: string;
  lastFireTime?: number;
  lastOutcome?: RunOutcome;
}

export const RUN_OUTCOMES = [
  'created',
  'cancelled_previous',
  'skipped_overlap',
  'refused',
  'missed',
] as const;
/**
 * What one fire did: `created` a task; `cancelled_previous` stopped the unfinished task of the fire
 * before, then created one; `skipped_overlap` created none (the task before is unfinished);
 * `refused` the create was refused (rate, active tasks, the task body), `reason` says why;
 * `missed` no processor ran at the fire time and it is older than catchUpMs, or a later missed
 * fire ran in its place.
 */
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export interface ScheduleRun {
  fireTime: number;
  /** When the fire was decided. */
  firedAt: number;
  trigger: 'cron' | 'manual';
  outcome: RunOutcome;
  taskId?: string;
  /** The unfinished task of the fire before (skipped_overlap, cancelled_previous). */
  previousTaskId?: string;
  reason?: string;
}
