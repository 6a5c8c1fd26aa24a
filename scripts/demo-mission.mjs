// `npm run demo -- --mission`: bring your own job. A mission with tools from two real MCP servers
// (server-filesystem, server-memory) and one HTTP tool (a local ticket tracker this script starts),
// a Worker SIGKILLed in the middle of its writes, verification against all three systems, the
// report, and a count of every object in each system. No keys. Flags: --ci, --keep, --build.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endDemo, ensureReadyToRun, fail, stopDemo } from './demo/ending.mjs';
import { appReady, Child, startListening } from './demo/processes.mjs';
import { vigilClient } from './demo/client.mjs';
import { retryLines } from './demo/recoveries.mjs';
import { bold, cyan, dim, green, line, red, table } from './demo/render.mjs';
import {
  missionCatalog,
  missionCriteria,
  missionPlan,
  GAPS,
  SUMMARY,
  TICKET_TITLE,
} from './demo-mission-scenario.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const ci = args.includes('--ci');
const keep = args.includes('--keep');
/** The Worker dies just before the mission's 4th call: two files and one entity are written, the rest not. */
const CRASH_AT_STEP = 4;
const TENANT = 'demo';
// The build to run (as `npm run build` honours VIGIL_DIST_DIR): dist/ by default.
const dist = process.env.VIGIL_DIST_DIR ?? 'dist';
const KEY = 'demo-key-0001';

ensureReadyToRun({ root, dist, args });
const require = createRequire(import.meta.url);
const { startTicketTracker } = require(join(root, 'examples/ticket-tracker/tracker.js'));

// Everything the mission touches lives in one temp dir: the files, the memory file, the catalog.
const temp = realpathSync(mkdtempSync(join(tmpdir(), 'vigil-mission-')));
const workDir = join(temp, 'work');
spawnSync('mkdir', ['-p', workDir]);
const memoryFile = join(temp, 'memory.jsonl');
const tracker = await startTicketTracker();
const catalogPath = join(temp, 'vigil.tools.json');
writeFileSync(
  catalogPath,
  JSON.stringify(
    missionCatalog({ root, workDir, memoryFile, trackerUrl: tracker.url, tenant: TENANT }),
    null,
    2,
  ),
);

const prefix = `vigil-demo-${randomBytes(3).toString('hex')}`;
const timings = {
  HEARTBEAT_INTERVAL_MS: '1000',
  STALE_AFTER_MS: '5000',
  WATCHER_INTERVAL_MS: '1000',
  USER_UPDATE_INTERVAL_MS: '10000',
};
const env = {
  ...process.env,
  ...timings,
  KEY_PREFIX: prefix,
  // Port 0: nobody calls the worker, watcher or notifier here, so the OS picks their ports.
  WORKER_PORT: '0',
  WATCHER_PORT: '0',
  NOTIFIER_PORT: '0',
  API_KEYS: `${TENANT}:${KEY}`,
  VIGIL_TOOLS: catalogPath,
  // The tracker listens on loopback: HTTP tools and http_json checks refuse private targets otherwise.
  TOOLS_ALLOW_PRIVATE: 'true',
  LOG_LEVEL: 'info',
};

line(bold('Vigil demo: a mission with your own tools — two MCP servers from npm and one HTTP endpoint'));
line(
  `catalog ${dim(catalogPath)}: files (server-filesystem on ${workDir}), memory (server-memory), create_ticket (${tracker.url})`,
);
line(
  `the scripted agent writes 2 files, 2 memory entities and 1 ticket, records 2 findings; the Worker is SIGKILLed before call ${CRASH_AT_STEP}`,
);

const children = [];
const start = async (name, entry, ready) => {
  const child = new Child(name, root, entry, env);
  children.push(child);
  await child.ready(ready);
  return child;
};
// The API is called at its port: chosen here, and chosen again if another process takes it first.
const startApi = async () => {
  const started = await startListening({
    name: 'api',
    root,
    entry: `${dist}/apps/api/src/main.js`,
    ready: appReady('api'),
    env: (port) => ({ ...env, PORT: String(port) }),
  });
  children.push(started.child);
  return started.port;
};
const [apiPort] = await Promise.all([
  startApi(),
  start('watcher', `${dist}/apps/watcher/src/main.js`, appReady('watcher')),
  start('notifier', `${dist}/apps/notifier/src/main.js`, appReady('notifier')),
]);
// The worker runs under a tiny supervisor, as an orchestrator would restart a crashed container.
let deaths = 0;
let stopping = false;
const workerLoop = (async () => {
  while (!stopping) {
    const worker = await start('worker', `${dist}/apps/worker/src/main.js`, appReady('worker'));
    const exit = await worker.exit;
    if (stopping) return;
    deaths++;
    line(red(`☠  worker process died (${exit.signal ?? `exit ${exit.code}`}) mid-mission — restarting it`));
  }
})();
line(green(`all processes up: api :${apiPort}, worker, watcher, notifier, ticket tracker ${tracker.url}`));

const vigil = vigilClient({ root, dist, baseUrl: `http://127.0.0.1:${apiPort}`, apiKey: KEY });

const request = {
  kind: 'mission',
  title: 'Review the docs and file what is missing',
  input: {
    goal: 'Review the quickstart and configuration docs, save notes in files and in memory, and open a ticket for each gap.',
    tools: ['files', 'memory', 'create_ticket'],
  },
  exitCriteria: missionCriteria({ workDir, trackerUrl: tracker.url }),
  agent: { scripted: { plan: missionPlan(workDir), crashAtStep: CRASH_AT_STEP } },
};
line(dim(`POST /v1/tasks ${JSON.stringify({ ...request, agent: { scripted: '…the plan…' } })}`));
const created = await vigil.tasks.create(request).catch(async (error) => {
  fail(`task creation failed: ${error.message}`);
  await shutdown();
  process.exit(1);
});
line(
  `task ${cyan(created.id)} created — exit criteria: ${created.exitCriteria.map((c) => c.check).join(', ')}`,
);

let task = created;
let shownMessages = 0;
const failedAttempts = retryLines({
  client: vigil,
  taskId: created.id,
  describe: (entry) => `↻  attempt ${entry.attempt} failed — ${entry.reason} (${entry.detail ?? ''})`,
  onError: (error) => fail(`the task's event stream failed: ${error.message}`),
});
const deadline = Date.now() + 90_000;
const showMessages = async () => {
  const messages = await vigil.tasks.messages(created.id, { limit: 100 });
  for (const message of (messages.data ?? []).slice(shownMessages)) {
    // The completed message carries the whole report: printed once below.
    const text = message.kind === 'completed' ? `${message.text.split('\n')[0]} …` : message.text;
    line(`✉  ${bold(message.kind)}: ${text}`);
  }
  shownMessages = Math.max(shownMessages, (messages.data ?? []).length);
};
while (
  !['completed', 'failed', 'cancelled', 'waiting_on_human'].includes(task.status) &&
  Date.now() < deadline
) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  task = await vigil.tasks.get(created.id);
  // The recovery notice waits for the lines of the failure it follows.
  if (failedAttempts.show(task, false)) continue;
  await showMessages();
}
await new Promise((resolve) => setTimeout(resolve, 1500));
// Waiting on a person, the task's stream stays open: what it had so far is shown, then it is closed.
await failedAttempts.close(task.status === 'waiting_on_human' ? 0 : 1500);
failedAttempts.show(task, true);
await showMessages();

line(bold(`task ${task.status} after ${task.attempt} attempts, ${task.sliceCount} slices`));
const report = await vigil.tasks.report(created.id);
process.stdout.write(
  `\n${dim('──── GET /v1/tasks/:id/report ────')}\n${report}${dim('──────────────────────────────────')}\n\n`,
);

// What each system holds, counted there, not taken from Vigil.
const files = readdirSync(workDir).sort();
const memory = existsSync(memoryFile)
  ? readFileSync(memoryFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((raw) => JSON.parse(raw))
      .filter((item) => item.type === 'entity')
  : [];
const stats = tracker.stats();
table(
  [
    ['files', files.length, 2, files.join(', ')],
    ['memory entities', memory.length, 2, memory.map((e) => e.name).join(', ')],
    ['tickets', stats.tickets, 1, `${stats.createCalls} create call(s) received`],
  ],
  ['system', 'objects', 'expected', 'what is there'],
);
const actions = (await vigil.tasks.actions(created.id, { limit: 100 })).data ?? [];
const madeByKey = new Map();
for (const a of actions)
  if (a.key && !a.deduplicated && a.error === undefined && !/record_finding|finish_task/.test(a.tool))
    madeByKey.set(a.key, (madeByKey.get(a.key) ?? 0) + 1);

const checks = [
  [
    task.status === 'completed' && task.verification?.passed,
    'the mission completed with every exit criterion verified',
  ],
  [
    deaths >= 1 && task.retryHistory.some((r) => r.reason === 'crashed'),
    'the worker crash was detected and the mission resumed',
  ],
  [
    files.length === 2 &&
      readFileSync(join(workDir, 'summary.md'), 'utf8') === SUMMARY &&
      readFileSync(join(workDir, 'gaps.md'), 'utf8') === GAPS,
    'the work dir holds exactly the two files, with their content',
  ],
  [memory.length === 2, 'memory holds exactly the two entities'],
  [
    stats.tickets === 1 && stats.createCalls === 1 && tracker.tickets[0]?.title === TICKET_TITLE,
    'the tracker received exactly one create',
  ],
  [[...madeByKey.values()].every((n) => n === 1), 'the action log shows every write made once'],
  [typeof report === 'string' && report.includes('## Findings (2)'), 'the report lists both findings'],
];
await endDemo({
  checks,
  keep,
  ci,
  lookAround: [
    `report:  curl -H 'Authorization: Bearer ${KEY}' http://127.0.0.1:${apiPort}/v1/tasks/${created.id}/report`,
    `tracker: ${tracker.url}/tickets — files: ${workDir} — Ctrl-C stops everything`,
  ],
  shutdown,
});

async function shutdown() {
  stopping = true;
  await stopDemo({ root, children, workerLoop, close: () => tracker.close(), keep, prefix, temp });
}
