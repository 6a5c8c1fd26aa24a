// How every demo starts and ends: its failures, its preconditions, its checks and its shutdown.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bold, green, line, red } from './render.mjs';

/** A guarantee that did not hold: said in red, and the demo exits non-zero. */
export function fail(message) {
  line(red(`✗ ${message}`));
  process.exitCode = 1;
}

/** Redis is up and the build `dist` exists (built when missing or asked with --build); else the demo exits. */
export function ensureReadyToRun({ root, dist, args }) {
  if (
    spawnSync(process.execPath, [join(root, 'scripts/ensure-redis.mjs')], { stdio: 'inherit' }).status !== 0
  )
    process.exit(1);
  if (!existsSync(join(root, dist, 'apps/worker/src/main.js')) || args.includes('--build')) {
    if (spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);
  }
}

/**
 * The demo's verdict: each `[ok, what]` check said ✓ or failed; with --keep, the `lookAround`
 * lines and everything left running until Ctrl-C; then `shutdown`, and under --ci a last line
 * when a guarantee did not hold.
 */
export async function endDemo({ checks, keep, ci, lookAround, shutdown }) {
  for (const [ok, what] of checks) (ok ? (w) => line(green(`✓ ${w}`)) : fail)(what);
  if (keep) {
    line(bold('--keep: still running. Look around:'));
    for (const text of lookAround) line(`  ${text}`);
    await new Promise((resolve) => process.once('SIGINT', resolve));
  }
  await shutdown();
  if (ci && process.exitCode) line(red('demo: a guarantee did not hold'));
}

/**
 * Stops the demo's processes (the caller has told its worker supervisor to stop first) and waits
 * for the supervisor, then `close`s what the demo started itself; without --keep, deletes the
 * demo's Redis keys and its temporary directory.
 */
export async function stopDemo({ root, children, workerLoop, close = async () => {}, keep, prefix, temp }) {
  await Promise.all(children.map((child) => child.stop()));
  await workerLoop;
  await close();
  if (keep) return;
  spawnSync(process.execPath, [join(root, 'scripts/cleanup-prefix.mjs'), prefix], { stdio: 'inherit' });
  if (temp) rmSync(temp, { recursive: true, force: true });
}
