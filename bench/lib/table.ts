import type { BenchResults } from './result';

/** A plain-text table with a header rule; columns sized to their widest cell. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (cell ?? '').padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function formatValue(value: number | string | null): string {
  if (value === null) return '—';
  if (typeof value === 'string') return value;
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : String(Number(value.toPrecision(3)));
}

/** The results as a table, then each figure's note (how it was measured). */
export function renderResults(results: BenchResults): string {
  const names = Object.keys(results);
  const rows = names.map((name) => {
    const result = results[name];
    return [name, formatValue(result.value), result.unit, result.target ?? ''];
  });
  const notes = names.map((name) => `  ${name}: ${results[name].note}`);
  return `${formatTable(['benchmark', 'value', 'unit', 'target'], rows)}\n\nHow each figure was measured:\n${notes.join('\n')}`;
}
