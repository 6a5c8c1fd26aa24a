/**
 * Small Markdown helpers for the task report (docs/missions.md, "The task report"). Every
 * value that came from outside the runtime (a goal, a finding, a tool's arguments) is cut to a
 * bound and made unable to break the surrounding structure: a table cell cannot add a column, a
 * code block cannot close its fence early.
 */

/** `text` cut to `max` characters, with an ellipsis when it was longer. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** A value as compact JSON (`undefined` as "—"), cut to `max`. */
export function shortJson(value: unknown, max = 120): string {
  if (value === undefined) return '—';
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return clip(text, max);
}

/** One table cell: no newlines, no unescaped pipes. */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim() || '—';
}

export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

/** A fenced block whose fence is longer than any backtick run inside it. */
export function codeBlock(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Text quoted as a block quote, line by line. */
export function quote(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => `> ${line}`)
    .join('\n');
}

/** Text from outside as a paragraph that cannot open a heading of the report's own. */
export function paragraph(text: string, max: number): string {
  return clip(text.trim(), max).replace(/^(#{1,6})(\s)/gm, '\\$1$2');
}

export const iso = (ms: number | null | undefined): string =>
  typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : '—';

export const usd = (amount: number): string => `$${amount.toFixed(2)}`;

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
