import { invalidParam } from './errors';
import type { AnyRecord } from './types';

export const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 1000;

export interface PageRequest {
  limit?: string;
  after?: string;
  before?: string;
}

export interface Page<T> {
  items: T[];
  before?: string;
  after?: string;
  hasNext: boolean;
  hasPrevious: boolean;
}

const encodeCursor = (seq: number): string => Buffer.from(`cursor:${seq}`).toString('base64url');

function decodeCursor(name: string, cursor: string): number {
  const match = /^cursor:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidParam(name, 'is not a valid cursor');
  return Number(match[1]);
}

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LIMIT;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) throw invalidParam('limit', 'must be a positive integer');
  return Math.min(Number(raw), MAX_LIMIT);
}

/** Cursor paging over records ordered newest first (Meta's default order for ad account edges). */
export function paginate<T extends AnyRecord>(records: T[], request: PageRequest): Page<T> {
  const limit = parseLimit(request.limit);
  const ordered = [...records].sort((a, b) => b.seq - a.seq);
  let start = 0;
  let end: number;
  if (request.after) {
    const seq = decodeCursor('after', request.after);
    start = ordered.findIndex((r) => r.seq < seq);
    if (start === -1) start = ordered.length;
    end = Math.min(start + limit, ordered.length);
  } else if (request.before) {
    const seq = decodeCursor('before', request.before);
    end = ordered.findIndex((r) => r.seq <= seq);
    if (end === -1) end = ordered.length;
    start = Math.max(0, end - limit);
  } else {
    end = Math.min(limit, ordered.length);
  }
  const items = ordered.slice(start, end);
  return {
    items,
    before: items.length ? encodeCursor(items[0].seq) : undefined,
    after: items.length ? encodeCursor(items[items.length - 1].seq) : undefined,
    hasNext: end < ordered.length,
    hasPrevious: start > 0,
  };
}

/** Meta's `paging` block; `next`/`previous` are full URLs that repeat the request's query. */
export function pagingBlock(page: Page<AnyRecord>, requestUrl: URL): Record<string, unknown> | undefined {
  if (page.items.length === 0) return undefined;
  const link = (key: 'after' | 'before', cursor: string): string => {
    const url = new URL(requestUrl.href);
    url.searchParams.delete('after');
    url.searchParams.delete('before');
    url.searchParams.set(key, cursor);
    return url.href;
  };
  const paging: Record<string, unknown> = { cursors: { before: page.before, after: page.after } };
  if (page.hasPrevious) paging.previous = link('before', page.before as string);
  if (page.hasNext) paging.next = link('after', page.after as string);
  return paging;
}
