import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function packageVersion(): string {
  for (const candidate of [
    join(process.cwd(), 'package.json'),
    join(__dirname, '../../../../package.json'),
  ]) {
    try {
      return (JSON.parse(readFileSync(candidate, 'utf8')) as { version: string }).version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

function gitCommit(): string {
  if (process.env.GIT_COMMIT) return process.env.GIT_COMMIT;
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

/** Which code is running: stamped on every task this process creates and shown by /version. */
export const CODE_VERSION = (() => {
  const version = packageVersion();
  const commit = gitCommit();
  return { version, commit, startedAt: new Date().toISOString(), label: `${version}+${commit}` };
})();
