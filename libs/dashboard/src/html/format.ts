/** "850 ms", "12.4 s", "3 min", "2.5 h": an age an operator reads at a glance. */
export function formatAge(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

export function formatUsd(value: number): string {
  return `$${value.toFixed(value >= 1 ? 2 : 4)}`;
}

export function formatUnits(done: number | null, total: number | null): string {
  if (done === null && total === null) return '—';
  return `${done ?? 0} / ${total ?? '?'}`;
}

export function formatTime(ms: number | null): string {
  return ms === null ? '—' : new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** A value as compact JSON, cut so one cell never floods the page. */
export function formatJson(value: unknown, max = 400): string {
  if (value === undefined) return '—';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return '—';
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}
