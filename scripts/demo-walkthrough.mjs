// `npm run demo -- --walkthrough`: a mission with eyes. `@playwright/mcp` drives Debian's chromium
// through a small web app (examples/walkthrough-app/) with a deliberate defect; the scripted agent
// navigates, reads snapshots, takes screenshots and records findings with them; the Worker is
// SIGKILLed mid-walkthrough, and the next prompt says the browser restarted and where it was. It
// ends verified, prints the report with its screenshot links, and checks every screenshot
// downloads with the bytes its id hashes. No keys. Flags: --ci, --keep, --build.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endDemo, ensureReadyToRun, fail, stopDemo } from './demo/ending.mjs';
import { appReady, Child, startListening } from './demo/processes.mjs';
import { vigilClient } from './demo/client.mjs';
import { retryLines } from './demo/recoveries.mjs';
import { bold, cyan, dim, green, line, red, table } from './demo/render.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const ci = args.includes('--ci');
const keep = args.includes('--keep');
const TENANT = 'demo';
const KEY = 'demo-key-0001';
const dist = process.env.VIGIL_DIST_DIR ?? 'dist';
const require = createRequire(import.meta.url);
const {
  CHROMIUM,
  CRASH_AT_STEP,
  DEFECT_TITLE,
  SCREENSHOTS,
  walkthroughCatalog,
  walkthroughCriteria,
  walkthroughPlan,
} = require(join(root, 'examples/walkthrough-app/scenario.js'));
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// The browser comes from Debian, never downloaded: without it there is nothing to drive.
if (!existsSync(CHROMIUM)) {
  line(red(`${CHROMIUM} is missing. Install it with:  apt-get install -y chromium`));
  process.exit(1);
}
ensureReadyToRun({ root, dist, args });
const { startWalkthroughApp } = require(join(root, 'examples/walkthrough-app/server.js'));

const temp = realpathSync(mkdtempSync(join(tmpdir(), 'vigil-walkthrough-')));
const app = await startWalkthroughApp();
const catalogPath = join(temp, 'vigil.tools.json');
writeFileSync(
  catalogPath,
  JSON.stringify(walkthroughCatalog({ root, outputDir: temp, tenant: TENANT }), null, 2),
);

const prefix = `vigil-demo-${randomBytes(3).toString('hex')}`;
const env = {
  ...process.env,
  HEARTBEAT_INTERVAL_MS: '1000',
  STALE_AFTER_MS: '5000',
  WATCHER_INTERVAL_MS: '1000',
  USER_UPDATE_INTERVAL_MS: '10000',
  KEY_PREFIX: prefix,
  // Port 0: nobody calls the worker, watcher or notifier here, so the OS picks their ports.
  WORKER_PORT: '0',
  WATCHER_PORT: '0',
  NOTIFIER_PORT: '0',
  API_KEYS: `${TENANT}:${KEY}`,
  VIGIL_TOOLS: catalogPath,
  OBJECT_STORE_URL: `file://${join(temp, 'objects')}`,
  LOG_LEVEL: 'info',
};

line(bold('Vigil demo: a browser walkthrough — @playwright/mcp and chromium, screenshots kept as evidence'));
line(`web app ${app.url} (home, pricing, sign-up) · catalog ${dim(catalogPath)}`);
line(
  `the scripted agent walks 4 pages, takes ${SCREENSHOTS} screenshots and records 2 findings; the Worker is SIGKILLed before call ${CRASH_AT_STEP}`,
);

const children = [];
const start = async (name, entry) => {
  const child = new Child(name, root, entry, env);
  children.push(child);
  await child.ready(appReady(name));
  return child;
};
let deaths = 0;
let stopping = false;
let workerLoop = Promise.resolve();
// The API is called at its port, and every app links to it (PUBLIC_BASE_URL): chosen first, and
// chosen again if another process takes it before the API listens.
let apiPort;
let base;
try {
  const api = await startListening({
    name: 'api',
    root,
    entry: `${dist}/apps/api/src/main.js`,
    ready: appReady('api'),
    env: (port) => ({ ...env, PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }),
  });
  children.push(api.child);
  apiPort = api.port;
  base = `http://127.0.0.1:${apiPort}`;
  env.PUBLIC_BASE_URL = base;
  await Promise.all([
    start('watcher', `${dist}/apps/watcher/src/main.js`),
    start('notifier', `${dist}/apps/notifier/src/main.js`),
  ]);
} catch (error) {
  fail(error.message);
  await shutdown();
  process.exit(1);
}
// The worker runs under a tiny supervisor, as an orchestrator would restart a crashed container.
workerLoop = (async () => {
  while (!stopping) {
    const worker = await start('worker', `${dist}/apps/worker/src/main.js`);
    const exit = await worker.exit;
    if (stopping) return;
    deaths++;
    line(
      red(`☠  worker process died (${exit.signal ?? `exit ${exit.code}`}) mid-walkthrough — restarting it`),
    );
  }
})();
line(green(`all processes up: api :${apiPort}, worker, watcher, notifier`));

const api = async (method, path, body) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  return response.headers.get('content-type')?.startsWith('text/markdown')
    ? response.text()
    : response.json();
};

const request = {
  kind: 'mission',
  title: 'Walk through the Ledgerly web app and report on it',
  input: {
    goal: `Walk through the web app at ${app.url} screen by screen: home, pricing, sign-up. Take a screenshot of each screen, try the sign-up, and record what works and what is broken, with the screenshots.`,
    tools: ['browser'],
  },
  exitCriteria: walkthroughCriteria(),
  agent: { scripted: { plan: walkthroughPlan(app.url), crashAtStep: CRASH_AT_STEP } },
};
line(dim(`POST /v1/tasks ${JSON.stringify({ ...request, agent: { scripted: '…the plan…' } })}`));
const created = await api('POST', '/v1/tasks', request);
if (!created.id) {
  fail(`task creation failed: ${JSON.stringify(created)}`);
  await shutdown();
  process.exit(1);
}
line(
  `task ${cyan(created.id)} created — exit criteria: ${created.exitCriteria.map((c) => c.check).join(', ')}`,
);

let task = created;
const failedAttempts = retryLines({
  client: vigilClient({ root, dist, baseUrl: base, apiKey: KEY }),
  taskId: created.id,
  describe: (entry) => `↻  attempt ${entry.attempt} failed — ${entry.reason} (${entry.detail ?? ''})`,
  onError: (error) => fail(`the task's event stream failed: ${error.message}`),
});
let shownActions = 0;
const showActions = async () => {
  const actions = (await api('GET', `/v1/tasks/${created.id}/actions?limit=100`)).data ?? [];
  for (const action of actions.slice(shownActions)) {
    const what = action.args?.url ?? action.args?.title ?? action.args?.target ?? '';
    line(
      dim(
        `   #${action.step} ${action.tool} ${what}${action.error ? red(` ✗ ${action.error.slice(0, 80)}`) : ''}`,
      ),
    );
  }
  shownActions = Math.max(shownActions, actions.length);
};
const deadline = Date.now() + 150_000;
while (
  !['completed', 'failed', 'cancelled', 'waiting_on_human'].includes(task.status) &&
  Date.now() < deadline
) {
  await new Promise((resolve) => setTimeout(resolve, 300));
  task = await api('GET', `/v1/tasks/${created.id}`);
  if (failedAttempts.show(task, false)) continue;
  await showActions();
}
await new Promise((resolve) => setTimeout(resolve, 1500));
await failedAttempts.close(task.status === 'waiting_on_human' ? 0 : 1500);
failedAttempts.show(task, true);
await showActions();

line(bold(`task ${task.status} after ${task.attempt} attempts, ${task.sliceCount} slices`));
const report = await api('GET', `/v1/tasks/${created.id}/report`);
process.stdout.write(
  `\n${dim('──── GET /v1/tasks/:id/report ────')}\n${report}${dim('──────────────────────────────────')}\n\n`,
);

// Every screenshot kept, fetched back: its bytes hash to its id, a PNG is a PNG.
const artifacts = (await api('GET', `/v1/tasks/${created.id}/artifacts`)).data ?? [];
const downloads = [];
for (const artifact of artifacts) {
  const response = await fetch(`${base}/v1/tasks/${created.id}/artifacts/${artifact.id}`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  downloads.push({
    artifact,
    ok: response.ok,
    hashOk: createHash('sha256').update(bytes).digest('hex') === artifact.id,
    png: artifact.mimeType !== 'image/png' || bytes.subarray(0, 8).equals(PNG),
  });
}
table(
  downloads.map(({ artifact, ok, hashOk, png }) => [
    `#${artifact.step}`,
    artifact.mimeType,
    `${artifact.width ?? '?'}×${artifact.height ?? '?'}`,
    artifact.bytes,
    ok && hashOk && png ? green('sha-256 ✓') : red('mismatch'),
  ]),
  ['step', 'type', 'size', 'bytes', 'download'],
);

const actions = (await api('GET', `/v1/tasks/${created.id}/actions?limit=100`)).data ?? [];
const firstOfAttempt2 = actions.find((action) => action.attempt === 2 && action.tool !== '(model)');
const ids = artifacts.map((artifact) => `${artifact.step}:${artifact.id}`);
const findings = (await api('GET', `/v1/tasks/${created.id}/findings?limit=100`)).data ?? [];
const linked = findings.flatMap((finding) => finding.artifacts ?? []);
const checks = [
  [
    task.status === 'completed' && task.verification?.passed,
    'the walkthrough completed with every exit criterion verified',
  ],
  [
    deaths >= 1 && task.retryHistory.some((entry) => entry.reason === 'crashed'),
    'the worker crash was detected and the walkthrough resumed',
  ],
  [
    firstOfAttempt2?.tool === 'browser__browser_navigate' && /signup\.html/.test(firstOfAttempt2.args.url),
    'told the browser restarted, the agent reopened the sign-up page before going on',
  ],
  [
    artifacts.length >= SCREENSHOTS && downloads.every((d) => d.ok && d.hashOk && d.png),
    `every screenshot downloads with the bytes its id hashes (${artifacts.length} listed)`,
  ],
  [new Set(ids).size === ids.length, 'no artifact is listed twice'],
  [typeof report === 'string' && report.includes(DEFECT_TITLE), 'the report names the defect'],
  [
    linked.length >= 2 &&
      linked.every(
        (id) =>
          typeof report === 'string' && report.includes(`${base}/v1/tasks/${created.id}/artifacts/${id}`),
      ),
    `the report links every screenshot the findings cite (${linked.length})`,
  ],
];
await endDemo({
  checks,
  keep,
  ci,
  lookAround: [
    `report:  curl -H 'Authorization: Bearer ${KEY}' ${base}/v1/tasks/${created.id}/report`,
    `app:     ${app.url} — Ctrl-C stops everything`,
  ],
  shutdown,
});

async function shutdown() {
  stopping = true;
  await stopDemo({ root, children, workerLoop, close: () => app.close(), keep, prefix, temp });
}
