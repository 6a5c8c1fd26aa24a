// Runs a TypeScript entry without a build: `node scripts/run-ts.mjs <entry.ts> [args...]`.
// tsx (esbuild) transpiles on the fly and resolves the @vigil/* aliases from tsconfig.json `paths`.
// Caveat: esbuild emits no decorator metadata (`design:paramtypes`), so Nest providers that rely
// on implicit constructor injection do not resolve under it; boot Nest apps from a build instead.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-ts.mjs <entry.ts> [args...]');
  process.exit(2);
}
const path = resolve(process.cwd(), entry);
if (!existsSync(path)) {
  console.error(`run-ts: ${entry} does not exist`);
  process.exit(2);
}

// tsx finds tsconfig.json from the working directory: run from the repository root.
const child = spawn(process.execPath, ['--import', 'tsx', path, ...args], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TSX_TSCONFIG_PATH: process.env.TSX_TSCONFIG_PATH ?? join(root, 'tsconfig.json') },
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exit(signal ? 128 + (constants.signals[signal] ?? 1) : (code ?? 1));
});
