// Jest global setup, once before any tier: stitch the Lua scripts into the git-ignored
// libs/tasks/src/lua/scripts.generated.ts, which the task scripts (and their specs) import.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export default function globalSetup() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build-lua.mjs')], { stdio: 'inherit' });
}
