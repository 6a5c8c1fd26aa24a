import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');

describe('meta sandbox standalone main', () => {
  it('logs its URL, serves the configured token and faults, and exits cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(__dirname, 'main.ts')],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          META_SANDBOX_PORT: '0',
          META_ACCESS_TOKEN: 'standalone-token',
          META_SANDBOX_FAULTS: JSON.stringify({ failNext: [{ path: 'campaigns', kind: 'transient500' }] }),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /meta sandbox listening on (\S+)/.exec(out);
          if (match) resolve(match[1]);
        });
        child.on('exit', () => reject(new Error(`exited early: ${out}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v21\.0$/);
      const faulted = await fetch(`${url}/act_1/campaigns?access_token=standalone-token`);
      expect(faulted.status).toBe(500);
      const ok = await fetch(`${url}/act_1/campaigns?access_token=standalone-token`);
      expect(await ok.json()).toEqual({ data: [] });
      const bad = await fetch(`${url}/act_1/campaigns?access_token=sandbox-token`);
      expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(190);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
