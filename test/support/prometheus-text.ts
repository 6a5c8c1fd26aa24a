/** Reads one sample out of a Prometheus text exposition: the value of `name` whose labels include `labels`. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value))
      total = (total ?? 0) + Number(match[3]);
  }
  return total ?? 0;
}
