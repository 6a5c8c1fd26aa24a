// Paired bench runs of this checkout against a baseline commit (docs/benchmarks.md, "Paired runs
// against a baseline"):
//
//   npm run bench:pairs -- --against <git ref> [--pairs N] [--only <bench>[,<bench>]] [--full] [--out <file>]
//   (node scripts/run-ts.mjs bench/pairs.ts …)
//
// The baseline is exported from git into a directory of its own (kept in the system's temporary
// directory, so a second run reuses its build), given this checkout's node_modules and this
// checkout's bench/ harness, and built. Then N pairs of `npm run bench -- --quick --only …` run,
// this build and the baseline's one after the other, the order alternating from pair to pair.
// Prints the median ratios (this build ÷ baseline) of the headline figures as JSON and writes every
// figure's ratios to --out (bench/pairs.json).
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eachFlag } from './lib/cli';
import { ROOT } from './lib/dist';
import { headlineOf, summarizePairs } from './lib/pairs';

interface PairsOptions {
  against?: string;
  pairs: number;
  only: string;
  quick: boolean;
  out: string;
}

type Side = 'baseline' | 'current';
const USAGE =
  'usage: npm run bench:pairs -- --against <git ref> [--pairs N (1–50, default 4)] ' +
  '[--only <bench>[,<bench>] (default throughput)] [--full] [--out <file> (default bench/pairs.json)]';
const log = (message: string) => process.stderr.write(`[pairs] ${message}\n`);

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): PairsOptions & { against: string } {
  const options: PairsOptions = {
    against: undefined,
    pairs: 4,
    only: 'throughput',
    quick: true,
    out: 'bench/pairs.json',
  };
  eachFlag(
    argv,
    (flag, value, argument) => {
      if (flag === '--against') options.against = value();
      else if (flag === '--pairs') {
        const raw = value();
        options.pairs = Number(raw);
        if (!Number.isInteger(options.pairs) || options.pairs < 1 || options.pairs > 50)
          throw new UsageError(`--pairs ${raw}: a whole number from 1 to 50`);
      } else if (flag === '--only') options.only = value();
      else if (flag === '--full') options.quick = false;
      else if (flag === '--out') options.out = value();
      else throw new UsageError(`unknown argument ${argument}`);
    },
    (message) => new UsageError(message),
  );
  const { against } = options;
  if (!against) throw new UsageError('--against <git ref> is required');
  // Each bench is bench/<name>.bench.ts (bench/main.ts): an unknown name fails here, not after the build.
  for (const name of options.only.split(',').filter(Boolean))
    if (!existsSync(join(ROOT, 'bench', `${name}.bench.ts`)))
      throw new UsageError(`--only ${name}: no such bench`);
  return { ...options, against };
}

function git(args: string[]): string | undefined {
  const run = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/** Runs a command to its end, its output going to `logFile`; throws with the log's tail on failure. */
function runLogged(
  command: string,
  args: string[],
  { cwd, env = process.env, logFile }: { cwd: string; env?: NodeJS.ProcessEnv; logFile: string },
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    const stop = () => child.kill('SIGTERM');
    process.once('SIGINT', stop);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', stop);
      const output = Buffer.concat(chunks).toString();
      writeFileSync(logFile, output);
      if (code === 0) resolvePromise(output);
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} (in ${cwd}) ended with ${signal ?? code}; its log ${logFile}:\n${output.slice(-3000)}`,
          ),
        );
    });
  });
}

/** The baseline runs on this checkout's dependencies (a baseline whose lockfile differs may not). */
function linkModules(dir: string): void {
  const link = join(dir, 'node_modules');
  if (lstatSync(link, { throwIfNoEntry: false })) unlinkSync(link);
  symlinkSync(join(ROOT, 'node_modules'), link);
}

/** The baseline's directory, exported and built once per commit; this checkout's harness copied in every time. */
async function prepareBaseline(commit: string, runs: string): Promise<string> {
  const dir = join(tmpdir(), `vigil-baseline-${commit.slice(0, 12)}`);
  const ready = join(dir, '.baseline-built');
  if (!existsSync(ready)) {
    log(`baseline ${commit.slice(0, 12)}: exporting and building in ${dir} (a minute or two)`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const exported = spawnSync('sh', ['-c', `git archive ${commit} | tar -x -C "${dir}"`], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (exported.status !== 0) throw new Error(`git archive ${commit} failed: ${exported.stderr}`);
    linkModules(dir);
    if (existsSync(join(dir, 'scripts/build-lua.mjs')))
      await runLogged(process.execPath, ['scripts/build-lua.mjs'], {
        cwd: dir,
        logFile: join(runs, 'baseline-lua.log'),
      });
    await runLogged('npm', ['run', 'build'], { cwd: dir, logFile: join(runs, 'baseline-build.log') });
    writeFileSync(ready, `${commit}\n`);
  }
  // Linked again on every run: a kept baseline may have been built from a checkout since removed.
  linkModules(dir);
  // Both sides are measured by the same harness: this checkout's.
  rmSync(join(dir, 'bench'), { recursive: true, force: true });
  cpSync(join(ROOT, 'bench'), join(dir, 'bench'), {
    recursive: true,
    filter: (source) => !/(results|pairs)\.json$/.test(source),
  });
  return dir;
}

async function benchRun(
  side: Side,
  dir: string,
  pair: number,
  options: PairsOptions,
  runs: string,
): Promise<unknown> {
  const out = join(runs, `${side}-${pair}.json`);
  const args = [
    'run',
    'bench',
    '--',
    ...(options.quick ? ['--quick'] : []),
    '--only',
    options.only,
    '--out',
    out,
  ];
  const started = Date.now();
  await runLogged('npm', args, {
    cwd: dir,
    env: { ...process.env, VIGIL_BENCH_DIST: 'dist' },
    logFile: join(runs, `${side}-${pair}.log`),
  });
  log(`pair ${pair}: ${side} done in ${Math.round((Date.now() - started) / 1000)} s`);
  return (JSON.parse(readFileSync(out, 'utf8')) as { results: unknown }).results;
}

async function main(): Promise<number> {
  let options: ReturnType<typeof parseArgs>;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench:pairs: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  const commit = git(['rev-parse', '--verify', '--quiet', `${options.against}^{commit}`]);
  if (!commit) {
    process.stderr.write(`bench:pairs: --against ${options.against}: no such commit in this repository\n`);
    return 2;
  }
  const runs = join(tmpdir(), `vigil-pairs-${Date.now()}`);
  mkdirSync(runs, { recursive: true });
  const baseline = await prepareBaseline(commit, runs);
  log('this checkout: building dist/');
  await runLogged('npm', ['run', 'build'], { cwd: ROOT, logFile: join(runs, 'current-build.log') });

  const pairs: { current: unknown; baseline: unknown }[] = [];
  for (let pair = 1; pair <= options.pairs; pair++) {
    log(`pair ${pair}/${options.pairs}: ${options.only}${options.quick ? ' (quick)' : ''}`);
    // Alternating order: a machine that speeds up or slows down during a pair favours neither side.
    const order: Side[] = pair % 2 === 1 ? ['baseline', 'current'] : ['current', 'baseline'];
    const results = { current: undefined as unknown, baseline: undefined as unknown };
    for (const side of order)
      results[side] = await benchRun(side, side === 'baseline' ? baseline : ROOT, pair, options, runs);
    pairs.push(results);
  }
  const figures = summarizePairs(pairs);
  const head = git(['rev-parse', 'HEAD']);
  const summary = {
    runAt: new Date().toISOString(),
    current: {
      commit: head,
      uncommittedChanges: Boolean(git(['status', '--porcelain', '--untracked-files=no'])),
    },
    baseline: { ref: options.against, commit },
    pairs: options.pairs,
    only: options.only,
    quick: options.quick,
    note: 'ratio = this checkout ÷ baseline, figure by figure within each pair; medianRatio over the pairs',
    runs,
  };
  const out = resolve(ROOT, options.out);
  writeFileSync(out, `${JSON.stringify({ ...summary, figures }, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify({ ...summary, headline: headlineOf(figures) }, null, 2)}\n`);
  log(`every figure's ratios written to ${out}; each run's JSON and log in ${runs}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:pairs: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
