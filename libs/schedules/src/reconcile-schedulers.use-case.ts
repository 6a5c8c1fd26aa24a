import { Injectable } from '@nestjs/common';
import { ScheduleQueue } from './schedule-queue';
import { ScheduleStore } from './schedule.store';
import type { Schedule } from './schedule.types';

/** Schedules read per page while reconciling (all of them are read, a page at a time). */
const PAGE = 500;

export interface ReconcileReport {
  /** Active schedules whose job scheduler was missing or differed, upserted again. */
  recreated: string[];
  /** Job schedulers of no schedule, or of a paused one, removed. */
  removed: string[];
}

/**
 * Makes the job schedulers match the schedule records (docs/schedules.md, "Reconciling"): every
 * active schedule has its BullMQ job scheduler with its cron and time zone, and nothing else has
 * one. The records are the truth: a Redis restored from a snapshot, a scheduler key deleted by
 * hand or a create, pause or delete that stopped between its two writes is repaired here. Run by
 * every Watcher at boot and every WATCHER_INTERVAL_MS; two at once upsert and remove the same
 * schedulers, which is harmless (an upsert of an existing scheduler keeps its next job).
 */
@Injectable()
export class ReconcileSchedulersUseCase {
  constructor(
    private readonly store: ScheduleStore,
    private readonly queue: ScheduleQueue,
  ) {}

  async reconcile(): Promise<ReconcileReport> {
    const schedulers = new Map((await this.queue.schedulers()).map((s) => [s.id, s]));
    const report: ReconcileReport = { recreated: [], removed: [] };
    const kept = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.store.listAll(PAGE, cursor);
      for (const schedule of page.data) {
        if (schedule.state !== 'active') continue;
        kept.add(schedule.id);
        const scheduler = schedulers.get(schedule.id);
        if (scheduler?.pattern === schedule.cron && scheduler.tz === schedule.timezone) continue;
        if (await this.stillActive(schedule)) {
          await this.queue.recreate(schedule);
          report.recreated.push(schedule.id);
        }
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    for (const id of schedulers.keys()) {
      if (kept.has(id)) continue;
      // Read again: a schedule created since the listing has its scheduler for good reason.
      const schedule = await this.store.find(id);
      if (schedule?.state === 'active') continue;
      await this.queue.remove(id);
      report.removed.push(id);
    }
    return report;
  }

  /** A pause or delete since the listing removes the scheduler itself: it is not put back. */
  private async stillActive(schedule: Schedule): Promise<boolean> {
    return (await this.store.find(schedule.id))?.state === 'active';
  }
}
