// Stitches the Lua scripts into their generated module, compiles every app and lib with tsc and
// rewrites @vigil/* imports to relative paths.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

// VIGIL_DIST_DIR lets parallel checkouts or helpers build side by side (default dist/).
const out = process.env.VIGIL_DIST_DIR ?? 'dist';
const outDir = resolve(root, out);
run(process.execPath, [join(root, 'scripts', 'build-lua.mjs')]);
rmSync(outDir, { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', out]);
run(bin('tsc-alias'), ['-p', 'tsconfig.build.json', '--outDir', out]);

console.log(`build: compiled to ${out}/`);
