// Child processes of the demo: the Meta sandbox and the four Vigil apps, each its own OS process.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';

/** A port free at the moment of asking: another process may take it before the caller listens. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a child that must listen on a port chosen before it starts (the API, whose address the
 * other processes are given; the sandbox). A port found free can be taken by another process
 * before the child listens: when the child fails with EADDRINUSE, it starts again on another port.
 * `env(port)` gives the child's environment for a port; `ports` picks them (freePort by default).
 */
export async function startListening({
  name,
  root,
  entry,
  env,
  ready,
  timeoutMs,
  attempts = 5,
  ports = freePort,
}) {
  for (let attempt = 1; ; attempt++) {
    const port = await ports();
    const child = new Child(name, root, entry, env(port));
    try {
      await child.ready(ready, timeoutMs);
      return { child, port, attempts: attempt };
    } catch (error) {
      await child.stop();
      if (attempt >= attempts || !/EADDRINUSE/.test(child.output)) throw error;
    }
  }
}

/** A Vigil app's own ready line (libs/platform bootstrap), not any output containing "ready" ("already in use"). */
export function appReady(app) {
  return new RegExp(`vigil-${app} ready on port`);
}

export class Child {
  constructor(name, root, entry, env) {
    this.name = name;
    this.output = '';
    this.process = spawn(process.execPath, [join(root, entry)], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [this.process.stdout, this.process.stderr])
      stream.on('data', (chunk) => (this.output += chunk));
    this.exit = new Promise((resolve) =>
      this.process.on('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  async ready(pattern, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.output)) {
      if (!this.alive()) throw new Error(`${this.name} exited during start:\n${this.output.slice(-2000)}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name} did not start in ${timeoutMs} ms:\n${this.output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  alive() {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  async stop() {
    if (!this.alive()) return;
    this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.alive() && this.process.kill('SIGKILL'), 10_000);
    await this.exit;
    clearTimeout(timer);
  }
}
