import { OVERLAP_POLICIES, RUN_OUTCOMES, SCHEDULE_STATES } from '@vigil/schedules';

/** The shapes of `/v1/schedules` answers (toScheduleView, toRunView), registered beside API_SCHEMAS. */
type Schema = Record<string, unknown>;

const iso = (description: string): Schema => ({
  type: 'string',
  format: 'date-time',
  nullable: true,
  description,
});

const SCHEDULE: Schema = {
  type: 'object',
  description: 'A schedule (docs/schedules.md); timestamps ISO 8601.',
  properties: {
    id: { type: 'string', example: 'sch_5f0c2a9e81d4b7c3a6e1f209' },
    tenantId: { type: 'string' },
    name: { type: 'string', example: 'nightly audit' },
    cron: { type: 'string', example: '0 9 * * 1-5' },
    timezone: { type: 'string', example: 'Europe/Berlin' },
    overlap: { type: 'string', enum: [...OVERLAP_POLICIES] },
    catchUpMs: { type: 'integer' },
    task: {
      type: 'object',
      additionalProperties: true,
      description: 'the body each fire creates a task with',
    },
    state: { type: 'string', enum: [...SCHEDULE_STATES] },
    createdAt: iso('when it was created'),
    updatedAt: iso('when it was last paused or resumed'),
    nextFireAt: iso('the next fire time (null while paused)'),
    lastFireAt: iso('the newest fire time decided'),
    lastOutcome: { type: 'string', nullable: true, enum: [...RUN_OUTCOMES, null] },
    lastTaskId: {
      type: 'string',
      nullable: true,
      description: 'the task of the newest fire that created one',
    },
  },
};

const RUN: Schema = {
  type: 'object',
  description: 'What one fire did',
  properties: {
    fireTime: iso('the fire time (for a trigger: when it was asked)'),
    firedAt: iso('when a Watcher (or the trigger) decided it'),
    trigger: { type: 'string', enum: ['cron', 'manual'] },
    outcome: { type: 'string', enum: [...RUN_OUTCOMES] },
    taskId: { type: 'string', nullable: true, description: 'the task it created' },
    previousTaskId: {
      type: 'string',
      nullable: true,
      description: 'the unfinished task of the fire before (skipped_overlap, cancelled_previous)',
    },
    reason: { type: 'string', nullable: true, description: 'why it was refused, skipped or missed' },
  },
};

const page = (name: string, description: string): Schema => ({
  type: 'object',
  required: ['data'],
  properties: {
    data: { type: 'array', items: { $ref: `#/components/schemas/${name}` }, description },
    nextCursor: { type: 'string', description: 'present when there is a next page: pass it as `cursor`' },
  },
});

export const SCHEDULE_SCHEMAS: Record<string, Schema> = {
  Schedule: SCHEDULE,
  SchedulePage: page('Schedule', 'newest first'),
  ScheduleRun: RUN,
  ScheduleRunPage: page('ScheduleRun', 'newest fire time first'),
};
