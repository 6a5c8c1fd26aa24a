import { ChildProcess, spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');

export type AppName = 'api' | 'worker' | 'watcher' | 'notifier';

/** The build the process tests run: dist/, or VIGIL_DIST_DIR. */
export function builtDistDir(): string {
  return join(ROOT, process.env.VIGIL_DIST_DIR ?? 'dist');
}

/**
 * A copy of the build stamped as another code version (as a deploy of a new commit would be),
 * inside the checkout so its modules resolve from node_modules; `remove` deletes it.
 */
export function copyBuildAs(commit: string): { dir: string; remove: () => void } {
  const dir = join(ROOT, `.dist-${commit}-${process.pid}`);
  cpSync(builtDistDir(), dir, { recursive: true });
  const stamp = JSON.parse(readFileSync(join(dir, 'BUILD_INFO.json'), 'utf8')) as { version: string };
  writeFileSync(join(dir, 'BUILD_INFO.json'), JSON.stringify({ version: stamp.version, commit }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** VIGIL_APP_NODE_ARGS, split on spaces: how a developer profiles the apps of a test or bench run. */
function nodeArgs(): string[] {
  return (process.env.VIGIL_APP_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/** A built app (dist/) running as its own OS process, as in production. */
/** How long to wait for an app's line: VIGIL_APP_WAIT_MS, or 60 s. */
export const APP_WAIT_MS = Number(process.env.VIGIL_APP_WAIT_MS ?? 60_000);

export class AppProcess {
  readonly output: string[] = [];
  /** The HTTP port it was given, when the starter knows it. */
  port?: number;
  private exitPromise: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
    }
    this.exitPromise = new Promise((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  static start(app: AppName | string, env: Record<string, string>, script?: string): AppProcess {
    const entry = script ?? join(builtDistDir(), `apps/${app}/src/main.js`);
    const child = spawn(
      process.execPath,
      // Node flags for every app a test or bench starts, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
      [...nodeArgs(), entry],
      {
        cwd: ROOT,
        env: { ...process.env, LOG_LEVEL: 'info', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    return new AppProcess(app, child);
  }

  text(): string {
    return this.output.join('');
  }

  /**
   * `timeoutMs` by default APP_WAIT_MS: a boot costs an app 2–4 s of CPU, which on a shared two-core
   * machine can stretch past 20 s; waiting longer only delays a failure.
   */
  async waitFor(pattern: RegExp, timeoutMs = APP_WAIT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.text())) {
      if (this.child.exitCode !== null) throw new Error(`${this.name} exited early:\n${this.text()}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name}: no ${pattern} within ${timeoutMs} ms:\n${this.text()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  exited() {
    return this.exitPromise;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), timeoutMs);
    await this.exitPromise;
    clearTimeout(timer);
  }
}
