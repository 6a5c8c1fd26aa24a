// `npm run demo`: an 134-step Meta campaign build that survives a worker crash and a false "done".
// Flags: --ci (assert and exit non-zero on any broken promise), --keep (leave it running),
// --model opus|gemini (real models when their API keys are set), --mission (the mission demo of
// scripts/demo-mission.mjs instead: your own tools from MCP servers and an HTTP endpoint),
// --walkthrough (scripts/demo-walkthrough.mjs: a browser walkthrough with screenshots as evidence).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endDemo, ensureReadyToRun, fail, stopDemo } from './demo/ending.mjs';
import { appReady, Child, startListening } from './demo/processes.mjs';
import { vigilClient } from './demo/client.mjs';
import { retryLines } from './demo/recoveries.mjs';
import { bold, cyan, dim, green, line, progress, red, table } from './demo/render.mjs';

if (process.argv.includes('--mission')) {
  await import('./demo-mission.mjs');
  process.exit();
}
if (process.argv.includes('--walkthrough')) {
  await import('./demo-walkthrough.mjs');
  process.exit();
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const ci = args.includes('--ci');
const keep = args.includes('--keep');
const model = args.includes('--model') ? args[args.indexOf('--model') + 1] : undefined;
const ACCOUNT = 'act_1234567890';
const CRASH_AT_STEP = 57;
const FALSE_FINISH_AFTER = 110;
// The build to run (as `npm run build` honours VIGIL_DIST_DIR): dist/ by default.
const dist = process.env.VIGIL_DIST_DIR ?? 'dist';

ensureReadyToRun({ root, dist, args });
const require = createRequire(import.meta.url);
const { campaignBuildDemoInput } = require(
  join(root, dist, 'libs/builtin-kinds/src/campaign-build/demo-input.js'),
);

const prefix = `vigil-demo-${randomBytes(3).toString('hex')}`;
const timings = {
  HEARTBEAT_INTERVAL_MS: '1000',
  STALE_AFTER_MS: '5000',
  WATCHER_INTERVAL_MS: '1000',
  USER_UPDATE_INTERVAL_MS: '10000',
};
const adminPassword = randomBytes(6).toString('hex');
const env = {
  ...process.env,
  ...timings,
  KEY_PREFIX: prefix,
  // Port 0: nobody calls the worker, watcher or notifier here, so the OS picks their ports.
  WORKER_PORT: '0',
  WATCHER_PORT: '0',
  NOTIFIER_PORT: '0',
  META_ACCESS_TOKEN: 'sandbox-token',
  API_KEYS: 'demo:demo-key-0001',
  ADMIN_PASSWORD: adminPassword,
  LOG_LEVEL: 'info',
};
const faults = {
  rateLimit: { every: 45, burst: 2 },
  transient500Probability: 0.02,
  commitThenDropProbability: 0.02,
  latencyMs: { min: 2, max: 15 },
};

line(
  bold(
    'Vigil demo: a 134-step Meta campaign build (1 campaign, 12 ad sets, 36 ads with images and creatives)',
  ),
);
line(
  `timings: heartbeat ${timings.HEARTBEAT_INTERVAL_MS} ms · stale after ${timings.STALE_AFTER_MS} ms · sweep every ${timings.WATCHER_INTERVAL_MS} ms · user updates every ${timings.USER_UPDATE_INTERVAL_MS} ms`,
);
line(
  `sandbox faults: rate limits (code 17) every 45 calls, 2% transient 500s, 2% creates committed but never answered; the agent will crash at step ${CRASH_AT_STEP} and claim "done" after ${FALSE_FINISH_AFTER}`,
);

const children = [];
const start = async (name, entry, ready, extraEnv = {}) => {
  const child = new Child(name, root, entry, { ...env, ...extraEnv });
  children.push(child);
  await child.ready(ready);
  return child;
};
// The sandbox and the API are called at their ports, so theirs are chosen here (and chosen again
// if another process takes one first).
const listening = async (name, entry, ready, portEnv) => {
  const started = await startListening({
    name,
    root,
    entry,
    ready,
    env: (port) => ({ ...env, ...portEnv(port) }),
  });
  children.push(started.child);
  return started;
};
const { child: sandbox, port: sandboxPort } = await listening(
  'meta-sandbox',
  `${dist}/apps/meta-sandbox/src/main.js`,
  /listening/,
  (port) => ({
    META_SANDBOX_PORT: String(port),
    META_SANDBOX_FAULTS: JSON.stringify(faults),
    META_SANDBOX_SEED: '7',
  }),
);
env.META_API_BASE_URL = `http://127.0.0.1:${sandboxPort}/v21.0`;
const [{ port: apiPort }] = await Promise.all([
  listening('api', `${dist}/apps/api/src/main.js`, appReady('api'), (port) => ({ PORT: String(port) })),
  start('watcher', `${dist}/apps/watcher/src/main.js`, appReady('watcher')),
  start('notifier', `${dist}/apps/notifier/src/main.js`, appReady('notifier')),
]);

// The worker runs under a tiny supervisor, as an orchestrator would restart a crashed container.
let worker;
let deaths = 0;
let stopping = false;
const runWorker = async () => {
  while (!stopping) {
    worker = await start('worker', `${dist}/apps/worker/src/main.js`, appReady('worker'));
    const exit = await worker.exit;
    if (stopping) return;
    deaths++;
    line(
      red(
        `☠  worker process died (${exit.signal ?? `exit ${exit.code}`}) mid-build — restarting it, as your orchestrator would`,
      ),
    );
  }
};
const workerLoop = runWorker();
line(green(`all processes up: api :${apiPort}, worker, watcher, notifier, Meta sandbox :${sandboxPort}`));

const vigil = vigilClient({ root, dist, baseUrl: `http://127.0.0.1:${apiPort}`, apiKey: 'demo-key-0001' });
const policy = model
  ? [model, model === 'opus' ? 'gemini' : 'opus', model, model === 'opus' ? 'gemini' : 'opus']
  : undefined;
const created = await vigil.tasks.create({
  kind: 'campaign_build',
  input: campaignBuildDemoInput({ adAccountId: ACCOUNT }),
  agent: {
    ...(policy ? { policy } : {}),
    scripted: { crashAtStep: CRASH_AT_STEP, falseFinishAfter: FALSE_FINISH_AFTER },
  },
});
line(
  `task ${cyan(created.id)} created: ${created.title} — exit criteria: ${created.exitCriteria.map((c) => `${c.check}=${c.expected}`).join(', ')}`,
);

let task = created;
let shownMessages = 0;
const failedAttempts = retryLines({
  client: vigil,
  taskId: created.id,
  describe: (entry) =>
    `↻  attempt ${entry.attempt} on ${entry.model} failed — ${
      entry.reason === 'failed_verification'
        ? `false completion caught by verification: ${entry.detail}`
        : `${entry.reason} (${entry.detail ?? ''})`
    }`,
  onError: (error) => fail(`the task's event stream failed: ${error.message}`),
});
const deadline = Date.now() + 110_000;
while (!['completed', 'failed', 'cancelled'].includes(task.status) && Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  task = await vigil.tasks.get(created.id);
  progress(task);
  // The recovery notice waits for the lines of the failure it follows.
  if (failedAttempts.show(task, false)) continue;
  const messages = await vigil.tasks.messages(created.id, { limit: 100 });
  for (const message of (messages.data ?? []).slice(shownMessages))
    line(`✉  ${bold(message.kind)}: ${message.text}`);
  shownMessages = Math.max(shownMessages, (messages.data ?? []).length);
}
await new Promise((resolve) => setTimeout(resolve, 1500));
// The stream ends after the task's terminal event: every recovery it had is known by then.
await failedAttempts.close(1500);
failedAttempts.show(task, true);
const finalMessages = await vigil.tasks.messages(created.id, { limit: 100 });
for (const message of (finalMessages.data ?? []).slice(shownMessages))
  line(`✉  ${bold(message.kind)}: ${message.text}`);

line(bold(`task ${task.status} after ${task.attempt} attempts, ${task.sliceCount} slices`));
if (task.verification) {
  table(
    task.verification.checks.map((c) => [
      c.passed ? green('pass') : red('FAIL'),
      c.check,
      JSON.stringify(c.expected),
      JSON.stringify(c.actual),
    ]),
    ['result', 'check', 'expected', 'actual (from the Meta API)'],
  );
}
const snapshot = await (await fetch(`http://127.0.0.1:${sandboxPort}/__sandbox/objects`)).json();
const counts = snapshot.counts;
table(
  [
    [
      counts.campaigns,
      counts.adsets,
      counts.adimages,
      counts.adcreatives,
      counts.ads,
      snapshot.duplicates.length,
    ],
  ],
  ['campaigns', 'ad sets', 'images', 'creatives', 'ads', 'duplicates'],
);

const retries = task.retryHistory.map((entry) => entry.reason);
const checks = [
  [
    task.status === 'completed' && task.verification?.passed,
    'the task completed with every exit criterion verified',
  ],
  [deaths >= 1 && retries.includes('crashed'), 'the worker crash was detected and the build resumed'],
  [retries.includes('failed_verification'), 'the false "done" was caught by verification'],
  [
    counts.campaigns === 1 &&
      counts.adsets === 12 &&
      counts.adimages === 36 &&
      counts.adcreatives === 36 &&
      counts.ads === 36,
    'the sandbox holds exactly the expected objects',
  ],
  [snapshot.duplicates.length === 0, 'no duplicate object was created'],
];
await endDemo({
  checks,
  keep,
  ci,
  lookAround: [
    `tasks:        curl -H 'Authorization: Bearer demo-key-0001' http://127.0.0.1:${apiPort}/v1/tasks/${created.id}`,
    `admin queues: http://127.0.0.1:${apiPort}/admin/queues (user admin, password ${adminPassword})`,
    `sandbox:      http://127.0.0.1:${sandboxPort}/__sandbox/objects — Ctrl-C stops everything`,
  ],
  shutdown: async () => {
    stopping = true;
    void sandbox;
    await stopDemo({ root, children, workerLoop, keep, prefix });
  },
});
