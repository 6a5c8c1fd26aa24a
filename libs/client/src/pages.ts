/** A cursor-paged list route's page (`{data, nextCursor?}`). */
export interface Page<T> {
  data: T[];
  nextCursor?: string;
}

/**
 * Every entry of a paged list, page after page, up to `max` entries (a safety bound: a task's
 * action log can be long). `truncated` says whether entries were left.
 */
export async function allPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  max = 10_000,
): Promise<{ data: T[]; truncated: boolean }> {
  const data: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    data.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor && data.length < max);
  return { data: data.slice(0, max), truncated: Boolean(cursor) || data.length > max };
}
