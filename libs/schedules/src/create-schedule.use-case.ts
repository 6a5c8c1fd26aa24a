import { Inject, Injectable } from '@nestjs/common';
import { SCHEDULES_CONFIG, type SchedulesConfig } from '@vigil/config';
import { CreateTaskUseCase } from '@vigil/control';
import { DomainError } from '@vigil/tasks';
import { cronProblem, shortestInterval, timezoneProblem } from './cron-times';
import { CreateScheduleDto, DEFAULT_CATCH_UP_MS } from './create-schedule.dto';
import { InvalidScheduleError } from './schedule-errors';
import { ScheduleQueue } from './schedule-queue';
import { ScheduleStore } from './schedule.store';
import type { Schedule, ScheduleSpec } from './schedule.types';

/**
 * `POST /v1/schedules`: checks the cron, the time zone, the bounds and the task body (as a create
 * would, without creating), stores the schedule under the tenant's count bound, then upserts its
 * BullMQ job scheduler (docs/schedules.md).
 */
@Injectable()
export class CreateScheduleUseCase {
  constructor(
    private readonly store: ScheduleStore,
    private readonly queue: ScheduleQueue,
    private readonly createTask: CreateTaskUseCase,
    @Inject(SCHEDULES_CONFIG) private readonly config: SchedulesConfig,
  ) {}

  async execute(tenantId: string, dto: CreateScheduleDto, now = Date.now()): Promise<Schedule> {
    this.assertTimes(dto, now);
    if (dto.task.parentId !== undefined)
      throw new InvalidScheduleError(['task.parentId: a scheduled task is no child of another task']);
    try {
      await this.createTask.check(tenantId, dto.task);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'invalid')
        throw new InvalidScheduleError(error.problemList().map((problem) => `task: ${problem}`));
      throw error;
    }
    const spec: ScheduleSpec = {
      name: dto.name,
      cron: dto.cron.trim(),
      timezone: dto.timezone,
      task: { ...dto.task },
      overlap: dto.overlap,
      catchUpMs: dto.catchUpMs ?? DEFAULT_CATCH_UP_MS,
    };
    const schedule = await this.store.create(
      ScheduleStore.newId(),
      tenantId,
      spec,
      this.config.schedulesPerTenant,
      now,
    );
    try {
      await this.queue.upsert(schedule);
    } catch (error) {
      // A schedule without its job scheduler would never fire: it is not kept.
      await this.store.delete(tenantId, schedule.id);
      throw error;
    }
    return schedule;
  }

  private assertTimes(dto: CreateScheduleDto, now: number): void {
    const zone = timezoneProblem(dto.timezone);
    if (zone) throw new InvalidScheduleError([zone]);
    const cron = cronProblem(dto.cron, dto.timezone, now);
    if (cron) throw new InvalidScheduleError([cron]);
    const shortest = shortestInterval(dto.cron, dto.timezone, now);
    const minimum = this.config.scheduleMinIntervalMs;
    if (shortest < minimum)
      throw new InvalidScheduleError([
        `cron "${dto.cron}" fires ${shortest / 1000} s apart at the shortest; ` +
          `SCHEDULE_MIN_INTERVAL_MS allows ${minimum / 1000} s at the shortest`,
      ]);
  }
}
