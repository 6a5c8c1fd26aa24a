// Stitches the Lua scripts into their generated module, compiles every app and lib with tsc and
// rewrites @vigil/* imports to relative paths.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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

// The code version every slice and action records: the package's version and the commit built.
function commit() {
  if (process.env.GIT_COMMIT) return process.env.GIT_COMMIT;
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const stamp = { version, commit: commit() };
writeFileSync(join(outDir, 'BUILD_INFO.json'), `${JSON.stringify(stamp)}\n`);
console.log(`build: compiled to ${out}/ (${stamp.version}+${stamp.commit})`);
