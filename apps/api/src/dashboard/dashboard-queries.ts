import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { TASK_STATUSES, TaskStatus } from '@vigil/tasks';

/** `?status=&tenant=` of the list page; an empty select means "any". */
export class BoardQuery {
  @IsOptional()
  @IsIn(['', ...TASK_STATUSES])
  status?: TaskStatus | '';

  @IsOptional()
  @IsString()
  @MaxLength(100)
  tenant?: string;
}

/** The live endpoints pick up from the page's render time (`after`, ms) or the last event id. */
export class LiveQuery extends BoardQuery {
  @IsOptional()
  @Matches(/^\d{1,15}(-\d{1,15})?$/)
  after?: string;
}

/** A button's form: the session's CSRF token. */
export class ControlForm {
  @IsOptional()
  @IsString()
  @MaxLength(100)
  csrf?: string;
}

export const DASHBOARD_CONTROLS = ['stop', 'pause', 'resume'] as const;
export type DashboardControl = (typeof DASHBOARD_CONTROLS)[number];

export function boardFilter(query: BoardQuery): { status?: TaskStatus; tenantId?: string } {
  return {
    ...(query.status ? { status: query.status } : {}),
    ...(query.tenant ? { tenantId: query.tenant } : {}),
  };
}
