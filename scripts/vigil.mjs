#!/usr/bin/env node
// The `vigil` command (package.json "bin"; docs/cli.md, "Running it"): runs the built CLI from
// dist/ (or VIGIL_DIST_DIR), so `npx vigil …` works in a checkout after `npm ci && npm run build`.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(root, process.env.VIGIL_DIST_DIR ?? 'dist');
const main = join(dist, 'apps/cli/src/main.js');
if (!existsSync(main)) {
  process.stderr.write(`vigil: ${main} is not built yet: run npm run build first (in ${root})\n`);
  process.exit(4);
}
createRequire(import.meta.url)(main);
