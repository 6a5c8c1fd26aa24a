import { runDemo } from '../../support/run-demo';

/** `npm run demo -- --walkthrough --ci` from the built tree: the crash, the reopening, verified, screenshots by hash. */
describe('npm run demo -- --walkthrough', () => {
  it('survives the crash, ends verified, prints the report with its screenshot links and exits 0', async () => {
    const { code, output } = await runDemo(['--walkthrough']);
    expect({ code, tail: code === 0 ? '' : output.slice(-3000) }).toEqual({ code: 0, tail: '' });
    expect(output).toMatch(/worker process died \(SIGKILL\) mid-walkthrough/);
    expect(output).toMatch(/task completed after 2 attempts/);
    expect(output).toContain('## Findings (2)');
    expect(output).toMatch(/Evidence: \[1\. artifact [0-9a-f]{12}\]\(http:\/\/127\.0\.0\.1:\d+\/v1\/tasks\//);
    expect(output).toContain(
      '✓ told the browser restarted, the agent reopened the sign-up page before going on',
    );
    expect(output).toContain('✓ every screenshot downloads with the bytes its id hashes (4 listed)');
    expect(output).not.toMatch(/✗/);
  }, 150_000);
});
