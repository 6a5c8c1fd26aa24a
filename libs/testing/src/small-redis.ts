import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { nodeMemoryOf } from '@vigil/redis';
import { freePort } from './free-port';

/** Every SmallRedis started by this process, killed at exit even when a test failed. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Plenty for a test's tasks: the limit a SmallRedis starts with and goes back to on `free`. */
const ROOMY_BYTES = 256 * 1024 * 1024;

/**
 * A private redis-server for tests of a full Redis (docs/operations.md, "A full Redis"): no
 * persistence, `maxmemory-policy noeviction`, and a `maxmemory` the test lowers to fill it and
 * raises to free it, with CONFIG SET. Its port: `VIGIL_TEST_REDIS_PORT_BASE` + `portOffset` when
 * that is set (a machine that reserves a range for extra Redis servers), else a free one.
 */
export class SmallRedis {
  private constructor(
    readonly port: number,
    private child: ChildProcess,
    /** A connection for the test's own commands (CONFIG, INFO). */
    readonly admin: Redis,
    /** Where an append-only file is kept (`persistent`), so a restart comes back with the data. */
    private readonly directory?: string,
  ) {}

  /** `persistent`: an append-only file fsynced on every write, as production runs, for `restart`. */
  static async start(options: { portOffset?: number; persistent?: boolean } = {}): Promise<SmallRedis> {
    const base = Number(process.env.VIGIL_TEST_REDIS_PORT_BASE ?? '');
    const port = base > 0 ? base + (options.portOffset ?? 0) : await freePort();
    const directory = options.persistent ? mkdtempSync(join(tmpdir(), 'vigil-small-redis-')) : undefined;
    const child = SmallRedis.spawnServer(port, directory);
    const admin = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined);
    await SmallRedis.reach(admin, child, port);
    return new SmallRedis(port, child, admin, directory);
  }

  private static spawnServer(port: number, directory?: string): ChildProcess {
    const persistence = directory
      ? ['--dir', directory, '--appendonly', 'yes', '--appendfsync', 'always']
      : ['--appendonly', 'no'];
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        ...persistence,
        '--maxmemory',
        String(ROOMY_BYTES),
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: 'ignore' },
    );
    running.add(child);
    child.once('exit', () => running.delete(child));
    return child;
  }

  private static async reach(admin: Redis, child: ChildProcess, port: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await admin.connect();
        if ((await admin.ping()) === 'PONG') return;
      } catch (error) {
        admin.disconnect();
        if (Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`redis-server on ${port} did not start: ${String(error)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /**
   * A hard restart (SIGKILL, no final save), down for `downMs`, then up again on the same port
   * from its append-only file (`persistent`), with the limit it starts with: every client sees its
   * connection drop and must reconnect.
   */
  async restart(downMs = 200): Promise<void> {
    if (!this.directory) throw new Error('restart needs a SmallRedis started persistent');
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
    this.admin.disconnect();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    this.child = SmallRedis.spawnServer(this.port, this.directory);
    await SmallRedis.reach(this.admin, this.child, this.port);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async usedBytes(): Promise<number> {
    return nodeMemoryOf((await this.admin.call('INFO', 'memory')) as string).used;
  }

  /**
   * Full at once and for as long as the test says: `maxmemory` of one byte, far below what is used
   * (a cap just under it would open again as client buffers are freed), so every write that may
   * need memory is refused.
   */
  async fill(): Promise<void> {
    await this.capAt(1);
  }

  /** Full once what is used grows `headroomBytes` more: the tasks' own writes fill it. */
  async fillAfter(headroomBytes: number): Promise<void> {
    await this.capAt((await this.usedBytes()) + headroomBytes);
  }

  /** Room again, as an operator raising `maxmemory` gives it. */
  async free(): Promise<void> {
    await this.capAt(ROOMY_BYTES);
  }

  async isFull(): Promise<boolean> {
    return nodeMemoryOf((await this.admin.call('INFO', 'memory')) as string).full;
  }

  private async capAt(bytes: number): Promise<void> {
    await this.admin.config('SET', 'maxmemory', String(Math.max(1, Math.floor(bytes))));
  }

  async stop(): Promise<void> {
    this.admin.disconnect();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    if (this.directory) rmSync(this.directory, { recursive: true, force: true });
  }
}
