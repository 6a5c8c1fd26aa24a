import { getNextMillis } from 'bullmq';

/**
 * A schedule's fire times, computed by the function BullMQ's job scheduler computes its next
 * iteration with (cron-parser with the `tz` option), so what we validate, show and catch up is
 * what fires, daylight-saving changes included (docs/schedules.md, "Time zones").
 */
export function nextFireTime(cron: string, timezone: string, afterMs: number): number | undefined {
  return getNextMillis(afterMs, { pattern: cron, tz: timezone });
}

/** Up to `count` fire times after `afterMs`, in order. */
export function fireTimesAfter(cron: string, timezone: string, afterMs: number, count: number): number[] {
  const times: number[] = [];
  let at = afterMs;
  while (times.length < count) {
    const next = nextFireTime(cron, timezone, at);
    if (next === undefined || next <= at) break;
    times.push(next);
    at = next;
  }
  return times;
}

/** Why `timezone` is no IANA time zone this runtime knows, or undefined when it is one. */
export function timezoneProblem(timezone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return timezone.includes('/') || timezone === 'UTC'
      ? undefined
      : `timezone must be an IANA name like Europe/Berlin or UTC, got "${timezone}"`;
  } catch {
    return `timezone "${timezone}" is not an IANA time zone (for example Europe/Berlin, America/New_York, UTC)`;
  }
}

/** Why `cron` cannot fire (unparseable, or never again), or undefined when it can. */
export function cronProblem(cron: string, timezone: string, now: number): string | undefined {
  const fields = cron.trim().split(/\s+/).length;
  if (fields < 5 || fields > 6)
    return `cron must have 5 fields (minute hour day month weekday) or 6 with leading seconds, got "${cron}"`;
  try {
    if (nextFireTime(cron, timezone, now) === undefined) return `cron "${cron}" never fires again`;
    return undefined;
  } catch (error) {
    return `cron "${cron}" is not a cron expression: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** How many fire times the interval check looks at: enough to pass any gap of a day or a month. */
const INTERVAL_SAMPLES = 500;

/** The shortest time between two consecutive fires among the next INTERVAL_SAMPLES. */
export function shortestInterval(cron: string, timezone: string, now: number): number {
  const times = fireTimesAfter(cron, timezone, now, INTERVAL_SAMPLES);
  let shortest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, times[i] - times[i - 1]);
  return shortest;
}
