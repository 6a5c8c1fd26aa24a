import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { schedulePage, schedulesPage } from '@vigil/dashboard';
import { ScheduleNotFoundError, ScheduleQueue, ScheduleStore } from '@vigil/schedules';

/** Schedules shown in the task dashboard, read-only (docs/schedules.md, "On the dashboard"). */
@ApiExcludeController()
@Controller('admin/tasks/schedules')
export class ScheduleDashboardController {
  constructor(
    private readonly store: ScheduleStore,
    private readonly queue: ScheduleQueue,
  ) {}

  @Get()
  async list(@Res() response: Response): Promise<void> {
    const { data } = await this.store.listAll(200);
    const next = new Map<string, number>();
    for (const schedule of data) {
      const at = await this.queue.nextFireTime(schedule.id);
      if (at !== undefined) next.set(schedule.id, at);
    }
    response.type('text/html').send(schedulesPage(data, next));
  }

  @Get(':id')
  async schedule(@Param('id') id: string, @Res() response: Response): Promise<void> {
    const schedule = await this.store.find(id);
    if (!schedule) throw new ScheduleNotFoundError(id);
    const runs = await this.store.runPage(id, 200);
    response.type('text/html').send(schedulePage(schedule, runs.data, await this.queue.nextFireTime(id)));
  }
}
