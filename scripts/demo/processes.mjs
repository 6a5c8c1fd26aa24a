// Child processes of the demo: the Meta sandbox and the four Vigil apps, each its own OS process.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';

/**
 * `count` free ports, all different: each listener stays open until every port is known, so two
 * calls cannot be handed the same port (ports asked for one by one, in parallel, could be).
 */
export async function freePorts(count) {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => server.address().port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export async function freePort() {
  return (await freePorts(1))[0];
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
      if (this.process.exitCode !== null)
        throw new Error(`${this.name} exited during start:\n${this.output.slice(-2000)}`);
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
