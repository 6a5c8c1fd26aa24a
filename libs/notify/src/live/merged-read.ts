import { compareStreamIds } from './resume-point';

/** One entry of an XREAD reply, with the stream it came from. */
export interface ReadEntry {
  source: 'events' | 'live';
  id: string;
  fields: string[];
}

/** An XREAD reply: per stream with entries, its key and `[id, fields]` entries. */
export type StreamReply = [string, [string, string[]][]][] | null;

/**
 * The entries of one XREAD over the durable events and the live output, in the order they were
 * written (by id; on a tie, which two streams' ids can make, the durable event first). A stream
 * whose batch came back full may have older entries than the other's still unread: only what is
 * no newer than its last entry goes out now, the rest is read again next time.
 */
export function mergeRead(
  reply: StreamReply,
  keys: { events: string; live: string },
  count: number,
): ReadEntry[] {
  const batches: ReadEntry[][] = [];
  let bound: string | undefined;
  for (const [key, entries] of reply ?? []) {
    const source = key === keys.events ? 'events' : key === keys.live ? 'live' : undefined;
    if (!source) continue;
    batches.push(entries.map(([id, fields]) => ({ source, id, fields })));
    const last = entries.at(-1)?.[0];
    if (entries.length >= count && last && (!bound || compareStreamIds(last, bound) < 0)) bound = last;
  }
  const merged = batches.flat().filter((entry) => !bound || compareStreamIds(entry.id, bound) <= 0);
  return merged.sort(
    (a, b) => compareStreamIds(a.id, b.id) || (a.source === b.source ? 0 : a.source === 'events' ? -1 : 1),
  );
}
