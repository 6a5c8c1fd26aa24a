// Compiles every app and lib with tsc, rewrites @vigil/* imports to relative paths, and copies the
// Lua scripts beside the compiled code that loads them.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

// VIGIL_DIST_DIR lets parallel checkouts or helpers build side by side (default dist/).
const out = process.env.VIGIL_DIST_DIR ?? 'dist';
const outDir = resolve(root, out);
rmSync(outDir, { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', out]);
run(bin('tsc-alias'), ['-p', 'tsconfig.build.json', '--outDir', out]);

let copied = 0;
function copyLua(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyLua(path);
    else if (name.endsWith('.lua')) {
      cpSync(path, join(outDir, relative(root, path)));
      copied++;
    }
  }
}
copyLua(join(root, 'libs'));
console.log(`build: compiled to ${out}/, copied ${copied} Lua scripts`);
