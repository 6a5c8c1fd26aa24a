// Development: starts the four apps as separate processes (from dist/), prefixes their output, and
// stops them all on Ctrl-C. Builds first when dist/ is missing.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const apps = ['api', 'worker', 'watcher', 'notifier'];
const colors = { api: 36, worker: 33, watcher: 35, notifier: 32 };

if (spawnSync(process.execPath, [join(root, 'scripts/ensure-redis.mjs')], { stdio: 'inherit' }).status !== 0)
  process.exit(1);
if (!apps.every((app) => existsSync(join(root, `dist/apps/${app}/src/main.js`)))) {
  if (spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);
}

const children = apps.map((app) => {
  const child = spawn(process.execPath, [join(root, `dist/apps/${app}/src/main.js`)], {
    cwd: root,
    env: { LOG_FORMAT: 'pretty', ...process.env },
  });
  const tag = `\x1b[${colors[app]}m${app.padEnd(8)}\x1b[0m│ `;
  for (const stream of [child.stdout, child.stderr]) {
    let buffer = '';
    stream.on('data', (chunk) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop();
      for (const line of lines) process.stdout.write(tag + line + '\n');
    });
  }
  child.on('exit', (code, signal) => {
    process.stdout.write(`${tag}exited (${signal ?? code})\n`);
    if (!stopping) stop(code || 1);
  });
  return child;
});

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  const force = setTimeout(
    () => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')),
    10_000,
  );
  Promise.all(
    children.map((child) => (child.exitCode !== null ? null : new Promise((r) => child.on('exit', r)))),
  ).then(() => {
    clearTimeout(force);
    process.exit(code);
  });
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
