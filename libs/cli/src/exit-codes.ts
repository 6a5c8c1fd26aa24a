/**
 * The CLI's exit codes (docs/cli.md, "Exit codes"). `tasks watch` (and `create --watch`) exits by
 * how the task stands when it stops watching; `doctor` exits 1 when a check failed.
 */
export const EXIT = {
  /** The task completed (its exit criteria verified); any other command succeeded. */
  completed: 0,
  /** The task failed; `doctor` found a problem. */
  failed: 1,
  cancelled: 2,
  /** The task waits for a person: answer with `vigil tasks answer`. */
  waitingForPerson: 3,
  /** The CLI could not do what it was asked: bad usage, the API unreachable or refusing. */
  error: 4,
} as const;

/** The exit code of a task that will not move on without someone (undefined: still going). */
export function exitCodeOf(status: string | undefined): number | undefined {
  switch (status) {
    case 'completed':
      return EXIT.completed;
    case 'failed':
      return EXIT.failed;
    case 'cancelled':
      return EXIT.cancelled;
    case 'waiting_on_human':
      return EXIT.waitingForPerson;
    default:
      return undefined;
  }
}
