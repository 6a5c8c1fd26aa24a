// `npm run chaos -- --tasks 20 --kills 60 --seconds 180`: campaign builds against the faulty Meta
// sandbox while workers, watchers and notifiers are SIGKILLed or frozen at random, workers are
// sent SIGTERM (a deploy: they must drain), Redis fills up (maxmemory reached, then raised again)
// and Redis is restarted mid-run; then checks every invariant and exits non-zero if one fails.
// `--redis-port N` runs the private Redis on port N instead of a free one.
// `-- --cluster [--shards 6]`: the same on a local Redis Cluster (3 masters, 3 replicas), where the
// Redis fault is a master SIGKILLed mid-run and its replica promoted (the old master then rejoins
// as a replica). VIGIL_DIST_DIR runs another build than dist/.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkInvariants } from './chaos/invariants.mjs';
import { RedisFullFault } from './chaos/redis-full.mjs';
import { ChaosRedis } from './chaos/redis-server.mjs';
import { ChaosCluster } from './chaos-cluster.mjs';
import { appReady, Child, freePort, startListening } from './demo/processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const TASKS = arg('tasks', 20);
const KILLS = arg('kills', 60);
const SECONDS = arg('seconds', 180);
const CLUSTER = process.argv.includes('--cluster');
const SHARDS = arg('shards', CLUSTER ? 6 : 1);
const dist = process.env.VIGIL_DIST_DIR ?? 'dist';
let seed = arg('seed', 1);
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const log = (text) =>
  console.log(`[chaos ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(5)}s] ${text}`);
const startedAt = Date.now();

if (!existsSync(join(root, dist, 'apps/worker/src/main.js'))) {
  if (spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);
}
const require = createRequire(import.meta.url);
const { RedisKeys } = require(join(root, dist, 'libs/redis/src/redis-keys.js'));
const { createRedis } = require(join(root, dist, 'libs/redis/src/redis-connection.js'));
const { masterNodes } = require(join(root, dist, 'libs/redis/src/cluster-nodes.js'));
const { nodeMemoryOf } = require(join(root, dist, 'libs/redis/src/store-memory.js'));
const { campaignBuildDemoInput } = require(
  join(root, dist, 'libs/builtin-kinds/src/campaign-build/demo-input.js'),
);

const redisPort = arg('redis-port', await freePort());
// The API keeps its port across restarts (the run's client calls it there) unless another process
// takes it while the API is down.
let apiPort = await freePort();
if (!ChaosRedis.available()) {
  console.error('chaos needs redis-server installed (it runs its own, persistent, and restarts it mid-run)');
  process.exit(1);
}
const cluster = CLUSTER ? new ChaosCluster(root) : undefined;
const redisServer = CLUSTER ? undefined : new ChaosRedis(redisPort);
await (cluster ?? redisServer).start();
const prefix = 'vigil-chaos';
const INTERVAL = 2000;
const STALE_AFTER_MS = 3000;
const env = {
  ...process.env,
  REDIS_URL: `redis://127.0.0.1:${redisPort}`,
  ...(cluster ? cluster.env() : {}),
  SHARDS: String(SHARDS),
  KEY_PREFIX: prefix,
  HEARTBEAT_INTERVAL_MS: '300',
  STALE_AFTER_MS: String(STALE_AFTER_MS),
  WATCHER_INTERVAL_MS: '300',
  USER_UPDATE_INTERVAL_MS: String(INTERVAL),
  TASK_MAX_SLICES: '60',
  WORKER_CONCURRENCY: '4',
  META_ACCESS_TOKEN: 'sandbox-token',
  API_KEYS: 'chaos:chaos-key-0001',
  LOG_LEVEL: 'warn',
};

const { child: sandbox, port: sandboxPort } = await startListening({
  name: 'meta-sandbox',
  root,
  entry: `${dist}/apps/meta-sandbox/src/main.js`,
  ready: /listening/,
  env: (port) => ({
    ...env,
    LOG_LEVEL: 'info',
    META_SANDBOX_PORT: String(port),
    META_SANDBOX_SEED: String(seed),
    META_SANDBOX_FAULTS: JSON.stringify({
      rateLimit: { every: 60, burst: 2 },
      transient500Probability: 0.02,
      commitThenDropProbability: 0.02,
      latencyMs: { min: 1, max: 10 },
    }),
  }),
});
env.META_API_BASE_URL = `http://127.0.0.1:${sandboxPort}/v21.0`;

// Every role runs under a keeper that restarts it when it dies, as an orchestrator would.
const roles = [
  ['api', 1],
  ['worker', 3],
  ['watcher', 2],
  ['notifier', 2],
];
const slots = [];
let stopping = false;
for (const [app, count] of roles) {
  for (let i = 0; i < count; i++) {
    // Port 0 for the apps nobody calls here: the OS picks a free one.
    const slot = { app, child: undefined, port: app === 'api' ? apiPort : 0 };
    slots.push(slot);
    slot.loop = (async () => {
      while (!stopping) {
        const portVar = {
          api: 'PORT',
          worker: 'WORKER_PORT',
          watcher: 'WATCHER_PORT',
          notifier: 'NOTIFIER_PORT',
        }[app];
        slot.child = new Child(app, root, `${dist}/apps/${app}/src/main.js`, {
          ...env,
          LOG_LEVEL: 'info',
          [portVar]: String(slot.port),
        });
        await slot.child.ready(appReady(slot.app), 60_000).catch(() => undefined);
        await slot.child.exit;
        if (slot.app === 'api' && /EADDRINUSE/.test(slot.child.output))
          slot.port = apiPort = await freePort();
        if (!stopping) await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
  }
}
while (slots.some((slot) => !slot.child || !appReady(slot.app).test(slot.child.output)))
  await new Promise((r) => setTimeout(r, 100));
log(
  `up: ${slots.length} app processes, sandbox, ` +
    (cluster
      ? `a private Redis Cluster (${cluster.nodesEnv}), ${SHARDS} shards`
      : `private persistent Redis on :${redisPort}`),
);

const api = async (method, path, body) => {
  const response = await fetch(`http://127.0.0.1:${apiPort}${path}`, {
    method,
    headers: { authorization: 'Bearer chaos-key-0001', 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  return response.json();
};
const taskIds = [];
for (let i = 0; i < TASKS; i++) {
  const scripted = i % 3 === 0 ? { falseFinishAfter: 60 + Math.floor(random() * 60) } : {};
  const created = await api('POST', '/v1/tasks', {
    kind: 'campaign_build',
    input: campaignBuildDemoInput({ adAccountId: `act_${9_000_000 + i}` }),
    agent: { scripted },
  });
  if (!created.id) throw new Error(`create failed: ${JSON.stringify(created)}`);
  taskIds.push(created.id);
}
log(`${TASKS} campaign builds submitted (${TASKS * 134} steps)`);

const redis = createRedis(
  {
    redisUrl: env.REDIS_URL,
    redisClusterNodes: cluster ? cluster.nodes : [],
  },
  'vigil-chaos',
);
// Refused connections while Redis restarts (or a master fails over) are expected; commands wait and retry.
redis.on('error', () => undefined);
const keys = new RedisKeys(prefix, SHARDS);
const terminal = async () => {
  const statuses = await Promise.all(taskIds.map((id) => redis.hget(keys.task(id), 'status')));
  return statuses.filter((s) => ['completed', 'failed', 'cancelled'].includes(s)).length;
};

let kills = 0;
let freezes = 0;
let drains = 0;
/** Worker pid → when it was sent SIGTERM (a deploy: it must drain, not fail its tasks). */
const drained = new Map();
let redisRestarted = false;
/** When Redis was full, with the settling after it: no other blow lands in that span. */
let redisFull;
let redisFullTried = false;
/** Cluster mode: the master killed, the replica promoted, how long until cluster_state:ok. */
let masterFailover;
let rejoined;
// Fast enough to land every requested blow while builds are still running.
const every = Math.min(1000, Math.max(150, 15_000 / Math.max(1, KILLS)));
while (Date.now() - startedAt < SECONDS * 1000) {
  const done = await terminal().catch(() => 0);
  if (done === TASKS && kills >= Math.min(KILLS, 1)) break;
  if (!redisFullTried && (kills >= KILLS / 4 || done >= TASKS / 4)) {
    redisFullTried = true;
    log('Redis full: blows paused, then every master filled to maxmemory under noeviction');
    redisFull = await new RedisFullFault({
      masters: () => masterNodes(redis),
      memoryOf: nodeMemoryOf,
      staleAfterMs: STALE_AFTER_MS,
      log,
    })
      .run()
      .catch((error) => log(`Redis full: not exercised: ${String(error)}`));
    log('Redis full: over, blows resume');
  } else if (cluster && !masterFailover && (kills >= KILLS / 2 || done >= TASKS / 2)) {
    log('SIGKILL of a Redis Cluster master mid-run');
    masterFailover = await cluster.killMaster();
    log(
      `replica :${masterFailover.promoted} promoted after ${masterFailover.failoverMs} ms; the old master rejoins`,
    );
    rejoined = cluster
      .restart(masterFailover.killed)
      .catch((error) => log(`the old master did not rejoin: ${String(error)}`));
  } else if (
    !cluster &&
    !redisRestarted &&
    (kills >= KILLS / 2 || done >= TASKS / 2) &&
    // Each Redis fault on its own: a restart lands 20 s after a full Redis at the earliest.
    (!redisFull || Date.now() - redisFull.to >= 20_000)
  ) {
    redisRestarted = true;
    log('restarting Redis (SIGKILL, 1 s down, reload from the append-only file)');
    await redisServer.restart(1000);
  } else if (kills + freezes + drains < KILLS) {
    // A draining Worker is left to finish: a second blow would make its drain a crash.
    const victims = slots.filter((slot) => slot.app !== 'api' && slot.child?.alive() && !slot.child.draining);
    const victim = victims[Math.floor(random() * victims.length)];
    if (victim) {
      const roll = random();
      if (victim.app === 'worker' && roll < 0.2) {
        drained.set(victim.child.process.pid, Date.now());
        victim.child.draining = true;
        victim.child.process.kill('SIGTERM');
        drains++;
      } else if (roll < 0.7) {
        victim.child.process.kill('SIGKILL');
        kills++;
      } else {
        const child = victim.child;
        child.process.kill('SIGSTOP');
        freezes++;
        setTimeout(() => child.process.kill('SIGCONT'), 500 + random() * 4000);
      }
    }
  }
  await new Promise((resolve) => setTimeout(resolve, every));
}
const redisFault = cluster
  ? `master failed over: ${Boolean(masterFailover)}`
  : `Redis restarted: ${redisRestarted}`;
log(
  `storm over: ${kills} SIGKILLs, ${freezes} SIGSTOP/SIGCONT, ${drains} SIGTERMs (drains), ${redisFault}, ` +
    `Redis full: ${Boolean(redisFull)}; waiting for tasks to settle`,
);
const settleUntil = Date.now() + 90_000;
while ((await terminal()) < TASKS && Date.now() < settleUntil) await new Promise((r) => setTimeout(r, 500));
await new Promise((resolve) => setTimeout(resolve, INTERVAL + 1000));

const snapshot = await (await fetch(`http://127.0.0.1:${sandboxPort}/__sandbox/objects`)).json();
const { result, outcomes } = await checkInvariants({
  redis,
  keys,
  taskIds,
  sandbox: snapshot,
  interval: INTERVAL,
  drained,
  redisFull,
});
stopping = true;
for (const slot of slots) slot.child?.process.kill('SIGCONT');
await Promise.all(slots.map((slot) => slot.child?.stop()));
await Promise.all(slots.map((slot) => slot.loop));
await sandbox.stop();
await redis.quit();
await rejoined;
await (cluster ?? redisServer).stop();

const report = {
  tasks: TASKS,
  kills,
  freezes,
  drains,
  ...(cluster ? { shards: SHARDS, masterFailover: masterFailover ?? null } : { redisRestarted }),
  redisFull: redisFull ?? null,
  outcomes,
  invariants: result,
  seconds: Math.round((Date.now() - startedAt) / 1000),
};
console.log(JSON.stringify(report, null, 2));
const targets = Object.entries(result);
console.table(
  Object.fromEntries(
    targets.map(([name, value]) => [name, { value, target: 0, ok: value === 0 ? 'yes' : 'NO' }]),
  ),
);
const broken = targets.filter(([, value]) => value !== 0);
if (cluster && !masterFailover) broken.push(['masterFailoverNotExercised', 1]);
if (!redisFull) broken.push(['redisFullNotExercised', 1]);
if (broken.length > 0) {
  console.error(`chaos: invariants broken: ${broken.map(([name]) => name).join(', ')}`);
  process.exit(1);
}
console.log('chaos: every invariant held');
