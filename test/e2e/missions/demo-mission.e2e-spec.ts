import { runDemo } from '../../support/run-demo';

/** `npm run demo -- --mission --ci` from the built tree: a crash mid-writes, verified, each write once. */
describe('npm run demo -- --mission', () => {
  it('survives the crash, ends verified, prints the report and counts one object per write', async () => {
    const { code, output } = await runDemo(['--mission']);
    expect({ code, tail: code === 0 ? '' : output.slice(-3000) }).toEqual({ code: 0, tail: '' });
    expect(output).toMatch(/worker process died \(SIGKILL\) mid-mission/);
    expect(output).toMatch(/attempt 1 failed — crashed/);
    expect(output).toMatch(/task completed after 2 attempts/);
    expect(output).toContain('## Findings (2)');
    expect(output).toContain('5 writes in the write journal; each was made once.');
    expect(output).toMatch(/files\s+2\s+2\s+gaps\.md, summary\.md/);
    expect(output).toMatch(/memory entities\s+2\s+2\s+Quickstart, Configuration/);
    expect(output).toMatch(/tickets\s+1\s+1\s+1 create call\(s\) received/);
    expect(output).not.toMatch(/✗/);
  }, 120_000);
});
