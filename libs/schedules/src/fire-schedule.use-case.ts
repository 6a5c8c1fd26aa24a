import { Injectable, Logger } from '@nestjs/common';
import {
  ControlNotAllowedError,
  CreateRateWindow,
  CreateTaskUseCase,
  StopTaskUseCase,
  type CreateTaskDto,
} from '@vigil/control';
import { DomainError, TaskNotFoundError, TaskRepository, TERMINAL_STATUSES } from '@vigil/tasks';
import { planCatchUp } from './catch-up';
import { nextFireTime } from './cron-times';
import { ScheduleBusyError, ScheduleNotFoundError } from './schedule-errors';
import { ScheduleStore } from './schedule.store';
import type { Schedule, ScheduleRun } from './schedule.types';

/** What a cron fire came to: decided (its run), or nothing because the schedule is gone or paused. */
export type FireResult =
  { state: 'decided'; run: ScheduleRun } | { state: 'not_found' } | { state: 'paused' };

/** How long a fire's claim holds its schedule: a Watcher that dies mid-fire holds it this long at most. */
export const FIRE_CLAIM_LEASE_MS = 10_000;

/** The Idempotency-Key of a fire's task: one task per schedule and fire time (docs/schedules.md). */
export function fireIdempotencyKey(scheduleId: string, fireTime: number): string {
  return `schedule:${scheduleId}:${fireTime}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Decides one fire of a schedule (docs/schedules.md, "One task per fire time"): claims it, catches
 * up what no Watcher took up in time, applies the overlap policy, and creates the task through
 * the same use case and limits as `POST /v1/tasks`, with an Idempotency-Key of the schedule and
 * the fire time. Every outcome is recorded as a run; a refused create says why.
 */
@Injectable()
export class FireScheduleUseCase {
  private readonly logger = new Logger(FireScheduleUseCase.name);

  constructor(
    private readonly store: ScheduleStore,
    private readonly createTask: CreateTaskUseCase,
    private readonly stopTask: StopTaskUseCase,
    private readonly tasks: TaskRepository,
    private readonly rate: CreateRateWindow,
  ) {}

  /** A fire of the cron: the job of fire time `jobFireTime`, taken up now. */
  async fire(
    tenantId: string,
    scheduleId: string,
    jobFireTime: number,
    now = Date.now(),
  ): Promise<FireResult> {
    const claim = await this.claim(tenantId, scheduleId, jobFireTime, false);
    if (claim.state !== 'claimed')
      return claim.state === 'duplicate' ? { state: 'decided', run: claim.run } : claim;
    const schedule = claim.schedule;
    const plan = planCatchUp(jobFireTime, now, schedule.catchUpMs, (at) =>
      nextFireTime(schedule.cron, schedule.timezone, at),
    );
    const missedRuns = plan.missed.map((missed): ScheduleRun => ({
      ...missed,
      firedAt: now,
      trigger: 'cron',
      outcome: 'missed',
    }));
    for (const missed of missedRuns) await this.store.recordRun(scheduleId, missed, { onlyIfAbsent: true });
    const run =
      plan.run === undefined
        ? missedRuns.find((missed) => missed.fireTime === jobFireTime)!
        : ((await this.store.runAt(scheduleId, plan.run)) ??
          (await this.decide(schedule, plan.run, 'cron', now)));
    // A run already recorded for the fire time (another Watcher's) is kept: the first decision stands.
    const recorded = await this.store.recordRun(scheduleId, run, {
      release: jobFireTime,
      onlyIfAbsent: true,
    });
    return {
      state: 'decided',
      run: recorded ? run : ((await this.store.runAt(scheduleId, run.fireTime)) ?? run),
    };
  }

  /** `POST /v1/schedules/:id/trigger`: a fire now, paused or not, under the same rules as the cron's. */
  async trigger(tenantId: string, scheduleId: string, now = Date.now()): Promise<ScheduleRun> {
    const claim = await this.claim(tenantId, scheduleId, now, true);
    if (claim.state === 'duplicate') return claim.run;
    // A manual fire is claimed paused or not: only a schedule of another tenant (or none) is refused.
    if (claim.state !== 'claimed') throw new ScheduleNotFoundError(scheduleId);
    const run = await this.decide(claim.schedule, now, 'manual', now);
    await this.store.recordRun(scheduleId, run, { release: now });
    return run;
  }

  /** Claims the fire, waiting while another fire of the schedule is decided (at most its lease). */
  private async claim(tenantId: string, scheduleId: string, fireTime: number, manual: boolean) {
    const deadline = Date.now() + FIRE_CLAIM_LEASE_MS + 1_000;
    for (;;) {
      try {
        return await this.store.claimFire(tenantId, scheduleId, fireTime, {
          manual,
          leaseMs: FIRE_CLAIM_LEASE_MS,
        });
      } catch (error) {
        if (!(error instanceof ScheduleBusyError) || Date.now() > deadline) throw error;
        await sleep(50);
      }
    }
  }

  private async decide(
    schedule: Schedule,
    fireTime: number,
    trigger: ScheduleRun['trigger'],
    now: number,
  ): Promise<ScheduleRun> {
    const base = { fireTime, firedAt: now, trigger };
    const previous = await this.unfinishedPrevious(schedule);
    if (previous && schedule.overlap === 'skip')
      return {
        ...base,
        outcome: 'skipped_overlap',
        previousTaskId: previous.id,
        reason: `the task of the fire before is ${previous.status}`,
      };
    const cancelled =
      previous && schedule.overlap === 'cancel_previous' ? await this.stop(schedule, previous.id) : undefined;
    const withPrevious = cancelled ? { previousTaskId: cancelled } : {};
    try {
      await this.rate.hit(schedule.tenantId);
      const { task } = await this.createTask.execute(
        schedule.tenantId,
        this.taskBody(schedule, fireTime),
        fireIdempotencyKey(schedule.id, fireTime),
      );
      return {
        ...base,
        outcome: cancelled ? 'cancelled_previous' : 'created',
        taskId: task.id,
        ...withPrevious,
      };
    } catch (error) {
      // A store that cannot take the write is no refusal: the job is retried.
      if (!(error instanceof DomainError) || error.kind === 'unavailable' || error.kind === 'upstream')
        throw error;
      this.logger.warn(
        `schedule ${schedule.id} fire ${new Date(fireTime).toISOString()} refused: ${error.message}`,
      );
      return { ...base, outcome: 'refused', reason: error.message, ...withPrevious };
    }
  }

  /** The task of the fire before when the overlap policy cares and it is unfinished. */
  private async unfinishedPrevious(schedule: Schedule) {
    if (schedule.overlap === 'allow' || !schedule.lastTaskId) return undefined;
    // A task gone from Redis was archived, and only finished tasks are.
    const previous = await this.tasks.get(schedule.lastTaskId);
    return previous && !TERMINAL_STATUSES.includes(previous.status) ? previous : undefined;
  }

  private async stop(schedule: Schedule, taskId: string): Promise<string> {
    try {
      await this.stopTask.execute(schedule.tenantId, taskId);
    } catch (error) {
      // It finished meanwhile: nothing left to cancel.
      if (!(error instanceof ControlNotAllowedError) && !(error instanceof TaskNotFoundError)) throw error;
    }
    return taskId;
  }

  /** The schedule's task body; untitled, it is named after the schedule and the fire time. */
  private taskBody(schedule: Schedule, fireTime: number): CreateTaskDto {
    return {
      ...schedule.task,
      title: schedule.task.title ?? `${schedule.name} · ${new Date(fireTime).toISOString()}`,
    };
  }
}
