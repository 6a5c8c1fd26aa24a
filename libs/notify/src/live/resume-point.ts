/**
 * Where a task's live stream resumes (docs/api.md, "Live model output"). A stream reads two
 * Redis streams: the shard's durable events and the task's live model output. A durable event's
 * SSE id is its stream id, as it always was (`1700000000000-0`); a live event's is both cursors,
 * `<last durable id sent>~<its live id>` (`1700000000000-0~1700000000123-0`), so a client that
 * resumes from either kind misses no durable event and no live event still kept.
 */
export interface ResumePoint {
  /** Durable events after this id. */
  events: string;
  /** Live events after this id. */
  live: string;
}

const STREAM_ID = /^\d{1,20}-\d{1,20}$/;
const SEPARATOR = '~';

/** Stream ids as Redis writes them (`<ms>-<seq>`). */
export function isStreamId(value: string): boolean {
  return STREAM_ID.test(value);
}

/** A Last-Event-ID this API hands out: a durable event's id or a live event's. */
export function isResumeId(value: string): boolean {
  return parseResumeId(value) !== undefined;
}

/**
 * The cursors a Last-Event-ID stands for; undefined if it is none of ours. After a durable event,
 * live output resumes from the start of that event's millisecond: what was sent before it in the
 * same millisecond may come again (a delta's `offset` tells), nothing written after it is missed.
 */
export function parseResumeId(value: string): ResumePoint | undefined {
  const [events, live, ...rest] = value.split(SEPARATOR);
  if (rest.length > 0 || !isStreamId(events)) return undefined;
  if (live === undefined) return { events, live: startOfMillisecond(events) };
  return isStreamId(live) ? { events, live } : undefined;
}

/** The id a live event is sent with. */
export function liveFrameId(point: ResumePoint): string {
  return `${point.events}${SEPARATOR}${point.live}`;
}

/** The last id before every entry of `id`'s millisecond. */
function startOfMillisecond(id: string): string {
  const ms = BigInt(id.split('-')[0]);
  return ms === 0n ? '0-0' : `${ms - 1n}-18446744073709551615`;
}

/** Orders stream ids as Redis does: by milliseconds, then sequence (both up to 64 bits). */
export function compareStreamIds(a: string, b: string): number {
  const [aMs, aSeq] = a.split('-').map(BigInt);
  const [bMs, bSeq] = b.split('-').map(BigInt);
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  if (aSeq !== bSeq) return aSeq < bSeq ? -1 : 1;
  return 0;
}

/** The milliseconds a stream id was written at. */
export function streamIdTime(id: string): number {
  return Number(id.split('-')[0]);
}
