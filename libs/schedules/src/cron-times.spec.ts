import { cronProblem, fireTimesAfter, shortestInterval, timezoneProblem } from './cron-times';

/** The wall-clock time of `ms` in `timezone`, as "YYYY-MM-DD HH:mm". */
function wallClock(ms: number, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(ms))
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

describe('fire times (BullMQ’s own next-fire function, with tz)', () => {
  it('fires a Europe/Berlin 09:00 schedule at 09:00 Berlin time across the spring daylight-saving change', () => {
    // 2026-03-29 02:00 CET becomes 03:00 CEST: 09:00 is 08:00Z before and 07:00Z after.
    const times = fireTimesAfter('0 9 * * *', 'Europe/Berlin', Date.parse('2026-03-27T12:00:00Z'), 4);
    expect(times.map((ms) => wallClock(ms, 'Europe/Berlin'))).toEqual([
      '2026-03-28 09:00',
      '2026-03-29 09:00',
      '2026-03-30 09:00',
      '2026-03-31 09:00',
    ]);
    expect(times.map((ms) => new Date(ms).toISOString())).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
    ]);
  });

  it('keeps the wall-clock time across the autumn change too, 23 and 25 hours apart in UTC', () => {
    // 2026-10-25 03:00 CEST becomes 02:00 CET.
    const times = fireTimesAfter('30 8 * * *', 'Europe/Berlin', Date.parse('2026-10-24T00:00:00Z'), 3);
    expect(times.map((ms) => wallClock(ms, 'Europe/Berlin'))).toEqual([
      '2026-10-24 08:30',
      '2026-10-25 08:30',
      '2026-10-26 08:30',
    ]);
    expect(times[1] - times[0]).toBe(25 * 3_600_000);
    const spring = fireTimesAfter('30 8 * * *', 'Europe/Berlin', Date.parse('2026-03-28T00:00:00Z'), 2);
    expect(spring[1] - spring[0]).toBe(23 * 3_600_000);
  });

  it('reads the same cron in another zone at that zone’s wall-clock time', () => {
    const [berlin] = fireTimesAfter('0 9 * * *', 'Europe/Berlin', Date.parse('2026-07-01T00:00:00Z'), 1);
    const [newYork] = fireTimesAfter('0 9 * * *', 'America/New_York', Date.parse('2026-07-01T00:00:00Z'), 1);
    expect(new Date(berlin).toISOString()).toBe('2026-07-01T07:00:00.000Z');
    expect(new Date(newYork).toISOString()).toBe('2026-07-01T13:00:00.000Z');
  });

  it('names what is wrong with a cron or a time zone', () => {
    const now = Date.parse('2026-07-01T00:00:00Z');
    expect(cronProblem('not a cron', 'UTC', now)).toMatch(/^cron must have 5 fields/);
    expect(cronProblem('99 * * * *', 'UTC', now)).toMatch(/^cron "99 \* \* \* \*" is not a cron expression/);
    expect(cronProblem('*/2 * * * * *', 'UTC', now)).toBeUndefined();
    expect(timezoneProblem('Mars/Olympus')).toMatch(/^timezone "Mars\/Olympus" is not an IANA time zone/);
    expect(timezoneProblem('Europe/Berlin')).toBeUndefined();
    expect(timezoneProblem('UTC')).toBeUndefined();
  });

  it('finds the shortest interval between two fires, past gaps of a day', () => {
    const now = Date.parse('2026-07-01T05:00:00Z');
    expect(shortestInterval('*/2 * * * * *', 'UTC', now)).toBe(2_000);
    expect(shortestInterval('0 9 * * 1-5', 'Europe/Berlin', now)).toBe(86_400_000);
    // Every minute of 03:00-03:59 only: the first gap is almost a day, the next ones a minute.
    expect(shortestInterval('* 3 * * *', 'UTC', now)).toBe(60_000);
  });
});
