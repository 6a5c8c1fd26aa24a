import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** `npm run demo -- --ci` from the built tree: the crash, the recovery, the caught false "done", the verified result. */
describe('npm run demo', () => {
  it('survives the crash and the false completion, and ends verified with exactly the expected objects', async () => {
    const root = join(__dirname, '../../..');
    const child = spawn(process.execPath, [join(root, 'scripts/demo.mjs'), '--ci'], {
      cwd: root,
      env: { ...process.env, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, tail: code === 0 ? '' : output.slice(-3000) }).toEqual({ code: 0, tail: '' });
    expect(output).toMatch(/worker process died \(SIGKILL\)/);
    expect(output).toMatch(/attempt 1 on opus failed — crashed/);
    expect(output).toMatch(/false completion caught by verification: .*missing ads/);
    expect(output).toMatch(/recovery: The original execution .* stopped unexpectedly/);
    expect(output).toMatch(/completed: .*verified/);
    expect(output).toMatch(/task completed after \d+ attempts/);
    expect(output).toMatch(
      /campaigns\s+ad sets\s+images\s+creatives\s+ads\s+duplicates\s+1\s+12\s+36\s+36\s+36\s+0/,
    );
    expect(output).not.toMatch(/✗/);
  }, 150_000);
});
