// A private, persistent redis-server for the chaos run, so it can be restarted mid-run without
// touching the machine's Redis: append-only file fsynced every write, as production should run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function ping(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    socket.on('error', () => resolve(false));
  });
}

export class ChaosRedis {
  constructor(port) {
    this.port = port;
    this.dir = mkdtempSync(join(tmpdir(), 'vigil-chaos-redis-'));
  }

  static available() {
    return spawnSync('sh', ['-c', 'command -v redis-server']).status === 0;
  }

  async start() {
    this.process = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
      ],
      { stdio: 'ignore' },
    );
    this.exited = new Promise((resolve) => this.process.on('exit', resolve));
    for (let i = 0; i < 100; i++) {
      if (await ping(this.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('chaos redis-server did not start');
  }

  /** A hard restart: SIGKILL (no final save), then start again from the append-only file. */
  async restart(downMs) {
    this.process.kill('SIGKILL');
    await this.exited;
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.start();
  }

  async stop() {
    this.process?.kill('SIGTERM');
    await this.exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
