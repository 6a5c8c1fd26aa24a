import type { LiveWatchers } from '@vigil/tasks';

/** A task's watch mark is looked up at most this often per Worker. */
export const WATCH_CHECK_INTERVAL_MS = 1_000;
/** Answers not asked for this long are forgotten (the task's slices ended here). */
const FORGET_AFTER_MS = 10_000;

interface Answer {
  watched: boolean;
  checkedAt: number;
  usedAt: number;
  asking: boolean;
}

/**
 * Whether someone follows a task's live output, as this Worker last learned it (docs/api.md,
 * "Live model output"): `watched` answers at once from what it knows and, when that is older than
 * WATCH_CHECK_INTERVAL_MS, looks again in the background (one EXISTS, never awaited by a call). A
 * task not yet looked up counts as unwatched until the answer comes: its calls keep their text
 * and publish it then. So a watcher costs each of its Workers a command a second, and a task
 * nobody watches costs one a second while it streams, whatever its token rate.
 */
export class WatchedTasks {
  private readonly answers = new Map<string, Answer>();
  private lastForget = Date.now();

  constructor(private readonly watchers: Pick<LiveWatchers, 'isWatched'>) {}

  watched(taskId: string, now = Date.now()): boolean {
    let answer = this.answers.get(taskId);
    if (!answer) {
      this.forgetUnused(now);
      answer = { watched: false, checkedAt: -Infinity, usedAt: now, asking: false };
      this.answers.set(taskId, answer);
    }
    answer.usedAt = now;
    if (!answer.asking && now - answer.checkedAt >= WATCH_CHECK_INTERVAL_MS) this.ask(taskId, answer, now);
    return answer.watched;
  }

  private ask(taskId: string, answer: Answer, now: number): void {
    answer.asking = true;
    this.watchers.isWatched(taskId).then(
      (watched) => {
        answer.watched = watched;
        answer.checkedAt = now;
        answer.asking = false;
      },
      // Redis did not answer: keep what was known, and ask again after the interval.
      () => {
        answer.checkedAt = now;
        answer.asking = false;
      },
    );
  }

  private forgetUnused(now: number): void {
    if (now - this.lastForget < FORGET_AFTER_MS) return;
    this.lastForget = now;
    for (const [taskId, answer] of this.answers)
      if (now - answer.usedAt >= FORGET_AFTER_MS && !answer.asking) this.answers.delete(taskId);
  }
}
