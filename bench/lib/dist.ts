import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '../..');
export const DIST_DIR = '.dist-bench';
const STAMP = '.bench-build-stamp';

function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return /\.(ts|lua|json)$/.test(path) ? stat.mtimeMs : 0;
  let newest = 0;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules') continue;
    newest = Math.max(newest, newestSource(join(path, name)));
  }
  return newest;
}

/** Whether `dir` holds a build of the apps a bench starts. */
function holdsApps(dir: string): boolean {
  return ['worker', 'watcher'].every((app) => existsSync(join(dir, `apps/${app}/src/main.js`)));
}

/**
 * The apps as production runs them, compiled to .dist-bench (`VIGIL_DIST_DIR=.dist-bench npm run
 * build`). Rebuilt only when a source under apps/ or libs/ (or the build config) is newer than the
 * last build, so repeated runs skip the ~15 s compile; with VIGIL_BENCH_DIST, that existing build
 * instead. Returns the absolute path of the build.
 */
export function ensureBenchBuild(log: (message: string) => void): string {
  // CI builds dist/ for the e2e tier from the same sources just before the bench: it is used as is.
  const given = process.env.VIGIL_BENCH_DIST;
  if (given) {
    const dir = join(ROOT, given);
    if (!holdsApps(dir))
      throw new Error(`VIGIL_BENCH_DIST=${given}: no built apps there (run npm run build)`);
    log(`build: using ${given}/ as built (VIGIL_BENCH_DIST)`);
    return dir;
  }
  const dist = join(ROOT, DIST_DIR);
  const stamp = join(dist, STAMP);
  const sources = Math.max(
    ...['apps', 'libs', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'package-lock.json']
      .map((path) => join(ROOT, path))
      .filter((path) => existsSync(path))
      .map(newestSource),
  );
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= sources && holdsApps(dist)) {
    log(`build: ${DIST_DIR}/ is up to date`);
    return dist;
  }
  log(`build: compiling to ${DIST_DIR}/ ...`);
  const started = Date.now();
  // Output to stderr: stdout carries the results.
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], {
    cwd: ROOT,
    env: { ...process.env, VIGIL_DIST_DIR: DIST_DIR },
    stdio: ['ignore', 2, 2],
  });
  if (build.status !== 0) throw new Error(`build to ${DIST_DIR} failed (exit ${build.status})`);
  writeFileSync(stamp, new Date().toISOString());
  log(`build: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dist;
}
