import { runDemo } from '../../support/run-demo';

/** `npm run demo -- --ci` from the built tree: the crash, the recovery, the caught false "done", the verified result. */
describe('npm run demo', () => {
  it('survives the crash and the false completion, and ends verified with exactly the expected objects', async () => {
    const { code, output } = await runDemo([]);
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
    // One fact, one number: a replay line and the recovery notice of the same retry count the same steps.
    const replayed = new Map(
      [...output.matchAll(/as attempt (\d+) \((\d+ of \d+) steps were complete\)/g)].map((match) => [
        Number(match[1]) - 1,
        match[2],
      ]),
    );
    const noticed = [...output.matchAll(/recovery: .*? (\d+ of \d+) steps were complete.*? retry (\d+) /g)];
    expect(replayed.size).toBe(2);
    expect(noticed.length).toBeGreaterThanOrEqual(1);
    for (const [, steps, retry] of noticed)
      expect({ retry, steps }).toEqual({ retry, steps: replayed.get(Number(retry)) });
  }, 150_000);
});
