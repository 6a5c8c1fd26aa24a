/** A missed fire time that will create no task, and why. */
export interface MissedFire {
  fireTime: number;
  reason: string;
}

/** What a fire taken up at `now` does: at most one fire time runs, the others are recorded as missed. */
export interface CatchUpPlan {
  run?: number;
  missed: MissedFire[];
}

/** Missed fire times listed at most: the others are counted in the first one's reason. */
const MAX_LISTED = 200;
/** Fire times looked at, at most, after a long outage (a 2-second cron down for half a day). */
const MAX_SCANNED = 50_000;

/**
 * BullMQ stores only the next iteration of a job scheduler; while no Watcher runs, that one job
 * waits and the later fire times are never produced (docs/schedules.md, "Catching up"). When a
 * Watcher takes it up at `now`, the fire times from the job's up to `now` are the missed ones:
 * the newest within `catchUpMs` runs, once; the rest are recorded as missed. A fire taken up in
 * time (no later fire time has passed) simply runs, unless it is older than `catchUpMs` itself.
 */
export function planCatchUp(
  jobFireTime: number,
  now: number,
  catchUpMs: number,
  next: (afterMs: number) => number | undefined,
): CatchUpPlan {
  const times = [jobFireTime];
  let scanned = 0;
  let dropped = 0;
  for (let at = next(jobFireTime); at !== undefined && at <= now && scanned < MAX_SCANNED; at = next(at)) {
    times.push(at);
    scanned++;
    if (times.length > MAX_LISTED + 1) {
      // The job's own fire time stays listed: its run is what the job answers.
      times.splice(1, 1);
      dropped++;
    }
  }
  const inWindow = times.filter((time) => now - time <= catchUpMs);
  const run = inWindow.at(-1);
  const missed = times
    .filter((time) => time !== run)
    .map((fireTime, index) => ({
      fireTime,
      reason:
        now - fireTime > catchUpMs
          ? `no Watcher took the fire up within catchUpMs (${catchUpMs} ms)`
          : `caught up by the one run of ${new Date(run!).toISOString()}`,
      ...(index === 0 && dropped > 0 ? { dropped } : {}),
    }))
    .map(({ fireTime, reason, dropped: earlier }) => ({
      fireTime,
      reason: earlier ? `${reason}; ${earlier} more fire times after it missed too, not listed` : reason,
    }));
  return run === undefined ? { missed } : { run, missed };
}
