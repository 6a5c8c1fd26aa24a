// Terminal output of the demo: a progress bar from the task record, messages, moments, tables.
const tty = process.stdout.isTTY && !process.env.CI;
const color = (code) => (text) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
export const bold = color(1);
export const dim = color(2);
export const red = color(31);
export const green = color(32);
export const yellow = color(33);
export const cyan = color(36);

const started = Date.now();
const clock = () => dim(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s]`);
let barShown = false;

function clearBar() {
  if (tty && barShown) process.stdout.write('\r\x1b[2K');
  barShown = false;
}

export function line(text) {
  clearBar();
  process.stdout.write(`${clock()} ${text}\n`);
}

export function progress(task) {
  const done = task.completedUnits ?? 0;
  const total = task.totalUnits ?? 0;
  const width = 32;
  const filled = total ? Math.round((done / total) * width) : 0;
  const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
  const text = `${bar} ${String(done).padStart(3)}/${total} steps · ${task.status} · attempt ${task.attempt}`;
  if (tty) {
    process.stdout.write(`\r\x1b[2K${clock()} ${text}`);
    barShown = true;
  } else if (progress.last !== `${done}:${task.status}:${task.attempt}` && done % 20 === 0) {
    line(text);
  }
  progress.last = `${done}:${task.status}:${task.attempt}`;
}

export function table(rows, headers) {
  clearBar();
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const format = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  process.stdout.write(`   ${bold(format(headers))}\n`);
  for (const row of rows) process.stdout.write(`   ${format(row)}\n`);
}
