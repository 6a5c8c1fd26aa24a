import { ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ROOT } from './dist';

/** A TypeScript helper process (run with tsx) spoken to in lines over stdin/stdout. */
export class LineChild {
  private readonly lines: string[] = [];
  private readonly waiters: { line: string; resolve: () => void }[] = [];
  readonly child: ChildProcess;
  private exited = false;

  constructor(file: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const waiter = this.waiters.findIndex((w) => w.line === line);
      if (waiter >= 0) this.waiters.splice(waiter, 1)[0].resolve();
      else this.lines.push(line);
    });
    this.child.on('exit', () => (this.exited = true));
  }

  get pid(): number {
    return this.child.pid!;
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Resolves when the child prints exactly `line` (or already did). */
  waitFor(line: string, timeoutMs = 120_000): Promise<void> {
    const seen = this.lines.indexOf(line);
    if (seen >= 0) {
      this.lines.splice(seen, 1);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`helper did not print "${line}" within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({ line, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exit = new Promise((resolve) => this.child.once('exit', resolve));
    this.send('stop');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exit;
    clearTimeout(timer);
  }
}
