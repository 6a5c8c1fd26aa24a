import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface BuildInfo {
  version: string;
  commit: string;
}

/**
 * What `npm run build` stamped into dist/BUILD_INFO.json (package version, git commit). Run from
 * the sources (tests, tsx) there is no stamp: then package.json and git (or GIT_COMMIT) answer.
 */
function buildInfo(): BuildInfo {
  try {
    return JSON.parse(readFileSync(join(__dirname, '../../../BUILD_INFO.json'), 'utf8')) as BuildInfo;
  } catch {
    return { version: packageVersion(), commit: process.env.GIT_COMMIT ?? gitCommit() };
  }
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return '0.0.0';
  }
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

/** Which code is running: stamped on every slice and action this process runs, shown by /version. */
export const CODE_VERSION = (() => {
  const { version, commit } = buildInfo();
  return { version, commit, startedAt: new Date().toISOString(), label: `${version}+${commit}` };
})();
