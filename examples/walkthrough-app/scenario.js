// The mission `npm run demo -- --walkthrough` and test/e2e/walkthrough run: a catalog with one stateful MCP server,
// `@playwright/mcp` driving Debian's chromium, and a scripted walkthrough of the small web app in
// examples/walkthrough-app/ that navigates its pages, reads their snapshots, takes screenshots,
// finds the deliberate defect (the sign-up form's submit fails with an error page), records
// findings with their screenshots and finishes. No model keys: the scripted agent plays the plan.
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS file, like server.js
const { join } = require('node:path');

const CHROMIUM = '/usr/bin/chromium';
/** The Worker is SIGKILLed just before the walkthrough's 9th call: the sign-up form's screenshot. */
const CRASH_AT_STEP = 9;
const DEFECT_TITLE = 'Sign-up is broken: submitting the form shows "Error 500"';
/** Screenshots the plan takes (calls 3, 6, 9 and 12). */
const SCREENSHOTS = 4;

/** The browser's arguments: headless, an in-memory profile, files in `outputDir`; root needs --no-sandbox. */
function browserArgs({ root, outputDir }) {
  return [
    join(root, 'node_modules/@playwright/mcp/cli.js'),
    '--headless',
    '--isolated',
    '--executable-path',
    CHROMIUM,
    '--output-dir',
    outputDir,
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
  ];
}

/** The operator's catalog (VIGIL_TOOLS): the browser, stateful, its navigation run as a read. */
function walkthroughCatalog({ root, outputDir, tenant }) {
  return {
    mcpServers: {
      // The server's own entry point under node: what `npx @playwright/mcp` runs.
      browser: {
        command: process.execPath,
        args: browserArgs({ root, outputDir }),
        cwd: outputDir,
        stateful: true,
        reads: ['browser_navigate', 'browser_navigate_back'],
      },
    },
    tenants: { [tenant]: { allow: ['browser'] } },
  };
}

const navigate = (url) => ({ tool: 'browser.browser_navigate', args: { url } });
const snapshot = (args) => ({ tool: 'browser.browser_snapshot', args });
// Each screenshot's arguments differ, as each is its own logical step the scripted agent plays once.
const screenshot = (args) => ({
  tool: 'browser.browser_take_screenshot',
  args: { type: 'png', scale: 'css', ...args },
});

/** The walkthrough, call by call (counted from 1, as `crashAtStep` and `"$artifacts:N"` count). */
function walkthroughPlan(appUrl) {
  return [
    navigate(`${appUrl}/`), // 1
    snapshot({}), // 2
    screenshot({}), // 3: the home page
    navigate(`${appUrl}/pricing.html`), // 4
    snapshot({ target: '.plans' }), // 5
    screenshot({ fullPage: true }), // 6: pricing
    navigate(`${appUrl}/signup.html?plan=team`), // 7
    snapshot({ target: 'form' }), // 8
    screenshot({ target: 'form' }), // 9: the sign-up form (the Worker dies just before it)
    // Submitting the form: its GET, as the browser sends it.
    navigate(`${appUrl}/signup?email=walkthrough%40example.com&plan=team`), // 10
    snapshot({ target: '.error' }), // 11
    screenshot({ target: '.error' }), // 12: the error
    {
      tool: 'record_finding',
      args: {
        title: DEFECT_TITLE,
        body: 'Choosing Team on the pricing page and submitting the sign-up form answers 500 with "we could not create your account (SIGNUP_STORE_UNAVAILABLE)". No account can be created.',
        data: { page: '/signup', status: 500, severity: 'high' },
        artifacts: ['$artifacts:12', '$artifacts:9'],
      },
    },
    {
      tool: 'record_finding',
      args: {
        title: 'Home and pricing pages render and link to sign-up',
        body: 'The home page links to pricing; both plans on pricing link to the sign-up form with their plan chosen.',
        data: { pages: ['/', '/pricing.html', '/signup.html'] },
        artifacts: ['$artifacts:3', '$artifacts:6'],
      },
    },
    {
      tool: 'finish_task',
      args: { summary: 'Walked home, pricing and sign-up; sign-up fails with Error 500 on submit.' },
    },
  ];
}

/** Evidence read from the runtime's record: both findings, and the screenshots it kept. */
function walkthroughCriteria() {
  return [
    { check: 'findings_count', expected: 2 },
    {
      check: 'artifact_exists',
      args: { tool: 'browser.browser_take_screenshot', mimeType: 'image/png' },
      expected: SCREENSHOTS,
    },
  ];
}

module.exports = {
  CHROMIUM,
  CRASH_AT_STEP,
  DEFECT_TITLE,
  SCREENSHOTS,
  browserArgs,
  walkthroughCatalog,
  walkthroughPlan,
  walkthroughCriteria,
};
