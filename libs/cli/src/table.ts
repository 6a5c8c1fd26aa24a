/** Columns padded to their widest cell; the last column is never padded (no trailing spaces). */
export function table(rows: readonly (readonly string[])[], gap = 2): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] + gap)))
      .join('')
      .trimEnd(),
  );
}

/** One line of at most `max` characters: newlines folded, the rest cut with an ellipsis. */
export function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A value as compact text: strings as they are, anything else as JSON. */
export function compact(value: unknown, max = 120): string {
  if (value === undefined) return '';
  return oneLine(typeof value === 'string' ? value : JSON.stringify(value), max);
}

/** An ISO timestamp to the second, in UTC (`2026-01-02 03:04:05Z`); empty for none. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** Money as the API counts it, to the cent, and below a cent to a tenth of one. */
export function usd(value: number | null | undefined): string {
  const amount = value ?? 0;
  return amount > 0 && amount < 0.01 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`;
}
