/**
 * startListening (scripts/demo/processes.mjs), which the demos and the chaos run use for the
 * processes called at a known port: a port taken between the check and the child's listen
 * (EADDRINUSE) starts the child again on another port; any other failure is reported at once.
 * Run as a process: the script is an ES module.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PROCESSES = join(__dirname, '..', '..', 'scripts', 'demo', 'processes.mjs');

// A child that listens on FIXTURE_PORT, or fails without listening when FIXTURE_FAIL is set.
const SERVER = `
if (process.env.FIXTURE_FAIL) { console.error(process.env.FIXTURE_FAIL); process.exit(2); }
const server = require('node:http').createServer((req, res) => res.end('ok'));
server.listen(Number(process.env.FIXTURE_PORT), '127.0.0.1', () => console.log('fixture listening on ' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

interface Outcome {
  taken: number;
  picked: number[];
  port?: number;
  attempts?: number;
  answer?: string;
  error?: string;
}

/** Picks the held (taken) port `takenPicks` times first, then free ones. */
function run(options: { takenPicks: number; attempts?: number; fail?: string }): Outcome {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-start-listening-'));
  try {
    writeFileSync(join(dir, 'server.js'), SERVER);
    const driver = `
      import net from 'node:net';
      import { freePort, startListening } from ${JSON.stringify(PROCESSES)};
      const held = net.createServer();
      await new Promise((resolve) => held.listen(0, '127.0.0.1', resolve));
      const taken = held.address().port;
      const picked = [];
      const outcome = { taken, picked };
      try {
        const started = await startListening({
          name: 'fixture',
          root: ${JSON.stringify(dir)},
          entry: 'server.js',
          ready: /fixture listening on/,
          timeoutMs: 10000,
          ${options.attempts ? `attempts: ${options.attempts},` : ''}
          env: (port) => ({ ...process.env, FIXTURE_PORT: String(port), FIXTURE_FAIL: ${JSON.stringify(options.fail ?? '')} }),
          ports: async () => {
            const port = picked.length < ${options.takenPicks} ? taken : await freePort();
            picked.push(port);
            return port;
          },
        });
        outcome.port = started.port;
        outcome.attempts = started.attempts;
        outcome.answer = await (await fetch('http://127.0.0.1:' + started.port)).text();
        await started.child.stop();
      } catch (error) {
        outcome.error = error.message;
      }
      held.close();
      console.log(JSON.stringify(outcome));
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', driver], {
      encoding: 'utf8',
      timeout: 50_000,
    });
    if (result.status !== 0) throw new Error(`driver failed: ${result.stderr}`);
    return JSON.parse(result.stdout.trim().split('\n').pop()!) as Outcome;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('startListening', () => {
  it('starts the child again on another port when its port was taken first', () => {
    const outcome = run({ takenPicks: 2 });
    expect(outcome.picked).toHaveLength(3);
    expect(outcome.picked.slice(0, 2)).toEqual([outcome.taken, outcome.taken]);
    expect(outcome).toMatchObject({ attempts: 3, port: outcome.picked[2], answer: 'ok' });
    expect(outcome.port).not.toBe(outcome.taken);
  });

  it('starts at once on a free port', () => {
    const outcome = run({ takenPicks: 0 });
    expect(outcome).toMatchObject({ attempts: 1, port: outcome.picked[0], answer: 'ok' });
  });

  it('gives up after its attempts, naming the child and its EADDRINUSE', () => {
    const outcome = run({ takenPicks: 10, attempts: 3 });
    expect(outcome.picked).toEqual([outcome.taken, outcome.taken, outcome.taken]);
    expect(outcome.error).toMatch(/fixture exited during start[\s\S]*EADDRINUSE/);
  });

  it('reports any other start failure at once, without trying another port', () => {
    const outcome = run({ takenPicks: 0, fail: 'no catalog here' });
    expect(outcome.picked).toHaveLength(1);
    expect(outcome.error).toMatch(/fixture exited during start[\s\S]*no catalog here/);
  });
});
