import { Inject, Injectable } from '@nestjs/common';
import type { Job, JobSchedulerTemplateOptions, Queue } from 'bullmq';
import { storeFullOf } from '@vigil/tasks';
import { nextFireTime } from './cron-times';
import type { Schedule } from './schedule.types';

export const SCHEDULE_QUEUE = Symbol('SCHEDULE_QUEUE');
export const FIRE_JOB_NAME = 'fire';

/** The job a schedule's BullMQ job scheduler produces at each fire time; the Watcher processes it. */
export interface FireJob {
  tenantId: string;
  scheduleId: string;
}

/**
 * A fire job that fails (Redis unreachable mid-fire) is retried: its run is decided once whatever
 * the number of attempts (claim-schedule-fire.lua, the task's Idempotency-Key).
 */
const FIRE_JOB_OPTIONS: JobSchedulerTemplateOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 3_600, count: 1_000 },
  removeOnFail: { age: 86_400, count: 1_000 },
};

/**
 * The fire time of a job a scheduler produced: BullMQ names the job `repeat:<scheduler>:<due ms>`
 * and keeps the due time as `prevMillis` in its options.
 */
export function fireTimeOf(job: Pick<Job, 'id' | 'opts' | 'timestamp'>): number {
  const prevMillis = (job.opts as { prevMillis?: unknown }).prevMillis;
  if (typeof prevMillis === 'number' && prevMillis > 0) return prevMillis;
  const due = /:(\d+)$/.exec(job.id ?? '');
  if (due) return Number(due[1]);
  throw new Error(`job ${job.id}: not produced by a schedule's job scheduler (no fire time)`);
}

/**
 * A schedule's BullMQ job scheduler (docs/schedules.md, "How fires happen"): one per active
 * schedule, its id the schedule's, its cron and time zone the schedule's. Only the API writes
 * them; BullMQ keeps one job of the next fire time, which the first Watcher to fetch it processes.
 */
@Injectable()
export class ScheduleQueue {
  constructor(@Inject(SCHEDULE_QUEUE) private readonly queue: Queue) {}

  async upsert(schedule: Schedule): Promise<void> {
    const data: FireJob = { tenantId: schedule.tenantId, scheduleId: schedule.id };
    await this.queue
      .upsertJobScheduler(
        schedule.id,
        { pattern: schedule.cron, tz: schedule.timezone },
        { name: FIRE_JOB_NAME, data, opts: FIRE_JOB_OPTIONS },
      )
      .catch((error: unknown) => {
        throw storeFullOf(error);
      });
  }

  /**
   * Upserts a job scheduler that went missing while its next job stayed (a scheduler key deleted,
   * a partial restore): that job, `repeat:<id>:<next fire time>`, would refuse the upsert's own
   * ("job ID already exists"), so a delayed one is removed first and the upsert adds it again.
   */
  async recreate(schedule: Schedule, now = Date.now()): Promise<void> {
    const next = nextFireTime(schedule.cron, schedule.timezone, now);
    const leftover =
      next === undefined ? undefined : await this.queue.getJob(`repeat:${schedule.id}:${next}`);
    if (leftover && (await leftover.isDelayed())) await leftover.remove();
    await this.upsert(schedule);
    await this.catchUpMissing(schedule, now);
  }

  /**
   * Fire times that passed while the scheduler was missing had no job: the first of them gets one,
   * due now, named as the scheduler would have named it, and the fire's catch-up (docs/schedules.md,
   * "Catching up") runs the newest within catchUpMs and records the others as missed. Counted from
   * the last fire, or from the last change of state (a resume does not catch up a pause). The job
   * id is the fire time's: a second Watcher adding it adds nothing.
   */
  private async catchUpMissing(schedule: Schedule, now: number): Promise<void> {
    const since = Math.max(schedule.lastFireTime ?? 0, schedule.updatedAt, schedule.createdAt);
    const missed = nextFireTime(schedule.cron, schedule.timezone, since);
    if (missed === undefined || missed > now) return;
    const data: FireJob = { tenantId: schedule.tenantId, scheduleId: schedule.id };
    await this.queue.add(FIRE_JOB_NAME, data, {
      ...FIRE_JOB_OPTIONS,
      jobId: `repeat:${schedule.id}:${missed}`,
    });
  }

  async remove(scheduleId: string): Promise<void> {
    await this.queue.removeJobScheduler(scheduleId);
  }

  /** Every job scheduler on the queue: its id (the schedule's), cron and time zone. */
  async schedulers(): Promise<{ id: string; pattern?: string; tz?: string }[]> {
    const all = await this.queue.getJobSchedulers(0, -1, true);
    return all.map((scheduler) => ({
      id: scheduler.key,
      ...(scheduler.pattern ? { pattern: scheduler.pattern } : {}),
      ...(scheduler.tz ? { tz: scheduler.tz } : {}),
    }));
  }

  /** When the scheduler's next job is due, or undefined when the schedule has none (paused). */
  async nextFireTime(scheduleId: string): Promise<number | undefined> {
    const scheduler = await this.queue.getJobScheduler(scheduleId);
    return scheduler?.next ?? undefined;
  }
}
