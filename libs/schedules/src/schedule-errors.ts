import { DomainError } from '@vigil/tasks';

export class ScheduleNotFoundError extends DomainError {
  readonly kind = 'not_found';

  constructor(readonly scheduleId: string) {
    super(`schedule ${scheduleId} not found`);
  }
}

/** The tenant holds SCHEDULES_PER_TENANT schedules already (a 429: room opens when one is deleted). */
export class ScheduleLimitError extends DomainError {
  readonly kind = 'limit';
  override readonly retryAfterS = 60;

  constructor(
    readonly held: number,
    readonly limit: number,
  ) {
    super(
      `this API key's tenant has ${held} schedules and may have at most ${limit} ` +
        '(SCHEDULES_PER_TENANT); delete one and try again',
    );
  }
}

/** A schedule body that cannot be: each problem names its field. */
export class InvalidScheduleError extends DomainError {
  readonly kind = 'invalid';

  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }

  override problemList(): readonly string[] {
    return this.problems;
  }
}

/** Another fire of the schedule is being decided: this one waits for it (never a user's error). */
export class ScheduleBusyError extends Error {
  constructor(
    readonly scheduleId: string,
    readonly firing: string,
  ) {
    super(`schedule ${scheduleId}: the fire of ${firing} is still being decided`);
  }
}
