/** JSON Pointers (RFC 6901): `/content/0/text`, `/data/0`, `` (the whole document). */

const MAX_POINTER_CHARS = 1000;

/** What is wrong with `pointer` as a JSON Pointer, or null when it is one. */
export function pointerProblem(pointer: unknown): string | null {
  if (typeof pointer !== 'string') return 'must be a JSON Pointer string such as "/content/0/text"';
  if (pointer.length > MAX_POINTER_CHARS) return `must be at most ${MAX_POINTER_CHARS} characters`;
  if (pointer !== '' && !pointer.startsWith('/')) return 'must be "" or start with "/" (a JSON Pointer)';
  if (/~[^01]|~$/.test(pointer)) return 'has a "~" not followed by 0 or 1 (a JSON Pointer escape)';
  return null;
}

/** The value at `pointer` in `document`; `found: false` when a segment is missing. */
export function valueAt(document: unknown, pointer: string): { found: boolean; value?: unknown } {
  if (pointer === '') return { found: true, value: document };
  let current: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(segment) || Number(segment) >= current.length) return { found: false };
      current = current[Number(segment)];
    } else if (current && typeof current === 'object' && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}
