import { InvalidCursorError } from '../task-errors';

/** One page of an append-only log (actions, findings, user messages), oldest first. */
export interface LogPage {
  data: unknown[];
  /** The position of the next entry, when there is one. */
  nextCursor?: string;
}

/** Entries `start` to `stop` (both included, as LRANGE) of a log, as stored (JSON strings). */
export type LogRange = (start: number, stop: number) => Promise<string[]>;

/**
 * The one paging of a task's logs: the cursor is a position, one entry past the page is read to
 * know whether another follows. A live log (LRANGE) and an archived one (its stored entries) page
 * through this same function, so a page reads the same before and after the task is archived
 * (docs/api.md, "Archived tasks").
 */
export async function pageOfLog(range: LogRange, limit: number, cursor?: string): Promise<LogPage> {
  if (cursor !== undefined && !/^\d+$/.test(cursor)) throw new InvalidCursorError();
  const start = cursor ? Number(cursor) : 0;
  const raw = await range(start, start + limit);
  const data = raw.slice(0, limit).map((entry) => JSON.parse(entry) as unknown);
  return raw.length > limit ? { data, nextCursor: String(start + limit) } : { data };
}

/** The range of a log held in memory (an archive's stored entries). */
export function rangeOfEntries(entries: readonly string[]): LogRange {
  return (start, stop) => Promise.resolve(entries.slice(start, stop + 1));
}
