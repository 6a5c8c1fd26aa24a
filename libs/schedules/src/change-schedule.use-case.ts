import { Injectable } from '@nestjs/common';
import { ScheduleQueue } from './schedule-queue';
import { ScheduleStore } from './schedule.store';
import type { Schedule } from './schedule.types';

/**
 * Pause, resume and delete (docs/schedules.md, "Pause, resume, trigger"): the record first, then
 * the job scheduler, so a fire that comes between finds the record and does nothing.
 */
@Injectable()
export class ChangeScheduleUseCase {
  constructor(
    private readonly store: ScheduleStore,
    private readonly queue: ScheduleQueue,
  ) {}

  async pause(tenantId: string, id: string): Promise<Schedule> {
    const schedule = await this.store.setState(tenantId, id, 'paused');
    await this.queue.remove(id);
    return schedule;
  }

  async resume(tenantId: string, id: string): Promise<Schedule> {
    const schedule = await this.store.setState(tenantId, id, 'active');
    await this.queue.upsert(schedule);
    return schedule;
  }

  async delete(tenantId: string, id: string): Promise<void> {
    await this.store.delete(tenantId, id);
    await this.queue.remove(id);
  }
}
