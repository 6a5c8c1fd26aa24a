import type { KeepJobs } from 'bullmq';

/**
 * How long BullMQ keeps a finished job of each queue (docs/operations.md, "Sizing Redis"). Redis
 * holds what is live; a finished job is only history for the queue dashboard, so each is removed
 * when it is older than `age` (seconds) or when `count` newer ones finished on the same queue,
 * whichever comes first. BullMQ applies this when a job finishes (moveToFinished): a queue holds
 * at most `count` completed and `count` failed jobs, and none older than `age` once another job
 * of the queue has finished the same way since (an idle queue keeps its last ones, up to `count`).
 *
 * Nothing reads a finished job back to decide anything. A slice job's id is its slice's
 * (`sliceJobId`: task, attempt, slice), taken from the record's attempt and `sliceCount + 1` (a
 * hand-off: the claiming job's slice + 1). A job that ran its slice claimed it, which moved
 * `sliceCount` on, so no later publish reuses its id; a job that finished without running one
 * (skipped: a stray, a task no longer queued) holds no work, and a new job under its id is what
 * the task needs. Where a finished job of the same id can meet a publish (the Watcher's republish
 * of a missing slice, a released child), `SliceQueue.republish` removes it first. So BullMQ's
 * de-duplication by id matters only against live jobs, which are never removed; the claim (status
 * `queued`, fenced by attempt) turns away any stray job all the same.
 */
export interface JobRetention {
  completed: KeepJobs;
  failed: KeepJobs;
}

/** Slice jobs: an hour of completed ones for the dashboard, a day of failed ones to look into. */
export const SLICE_JOB_RETENTION: JobRetention = {
  completed: { age: 3_600, count: 10_000 },
  failed: { age: 24 * 3_600, count: 10_000 },
};

/** Wake-ups: as slice jobs; the indexes, not the jobs, say which task needs a decision. */
export const WAKE_JOB_RETENTION: JobRetention = SLICE_JOB_RETENTION;

/** A retention whose completed jobs stay `ms` (FINISHED_JOB_RETENTION_MS), failed ones at least as long. */
export function withCompletedAge(retention: JobRetention, ms: number): JobRetention {
  const age = Math.max(1, Math.ceil(ms / 1000));
  return {
    completed: { ...retention.completed, age },
    failed: {
      ...retention.failed,
      age: Math.max(age, 'age' in retention.failed ? (retention.failed.age ?? 0) : 0),
    },
  };
}

/** The BullMQ job options of a retention. */
export function removalOptions(retention: JobRetention): {
  removeOnComplete: KeepJobs;
  removeOnFail: KeepJobs;
} {
  return { removeOnComplete: retention.completed, removeOnFail: retention.failed };
}

/** Injection tokens: a module may keep finished jobs for another time (tests use a short one). */
export const SLICE_RETENTION = Symbol('SLICE_RETENTION');
export const WAKE_RETENTION = Symbol('WAKE_RETENTION');

/**
 * Every queue's BullMQ event stream (`<queue>:events`: added, active, completed… per job) is capped
 * at this many entries. Nothing in Vigil reads it (no QueueEvents; the task's own events are on the
 * shard's stream), so it is kept short: a fixed ~0.1 MB per queue instead of BullMQ's default 10,000
 * entries. Every Queue opened on a name must pass it: BullMQ stores the cap in the queue's meta hash
 * when a Queue starts, so the last one to start sets it.
 */
export const QUEUE_STREAMS = { events: { maxLen: 1_000 } } as const;
