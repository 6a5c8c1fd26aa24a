import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig, sectionsOf, VigilConfig } from '@vigil/config';
import { taskEventFields } from '@vigil/events';
import { createNotifier, updateSlot } from '@vigil/notify';
import { RedisKeys } from '@vigil/redis';
import { NewTask, TaskRepository, TERMINAL_STATUSES } from '@vigil/tasks';
import { measureCommands, noiseNote } from './lib/commandstats';
import type { Bench } from './lib/result';

/**
 * Notifier costs: (1) finding the tasks whose user update is due among many active ones — the
 * update index (one ZRANGEBYSCORE) against a scan of every task record, in the same run, with the
 * Redis commands each needed (INFO commandstats deltas); (2) messages per second one notifier
 * delivers to a local webhook receiver, from event to HTTP request.
 */
export const runNotifierBench: Bench = async (opts) => {
  const prefix = `bench-notify-${randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    ...process.env,
    KEY_PREFIX: prefix,
    SHARDS: '1',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  const keys = new RedisKeys(config.keyPrefix, config.shards);
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  try {
    const selection = await dueSelection(redis, keys, config, opts.quick ? 2_000 : 10_000);
    const delivery = await webhookThroughput(redis, keys, config, opts.quick ? 300 : 2_000);
    return { 'notifier.dueSelection': selection, 'notifier.webhookDelivery': delivery };
  } finally {
    await cleanup(redis, prefix);
    await redis.quit();
  }
};

function task(i: number, webhookUrl?: string): NewTask {
  return {
    tenantId: 'bench',
    kind: 'noop',
    title: `bench ${i}`,
    input: { steps: 10 },
    exitCriteria: [{ check: 'all_steps_recorded', expected: 10 }],
    budgetUsd: 3,
    model: 'opus',
    totalUnits: 10,
    sandbox: webhookUrl === undefined,
    notify: webhookUrl ? { webhookUrl } : {},
    agent: {},
    codeVersion: 'bench',
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timedMs(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function dueSelection(redis: Redis, keys: RedisKeys, config: VigilConfig, count: number) {
  const repo = new TaskRepository(redis, keys, config);
  const now = Date.now();
  const dueEvery = 100; // 1% of the active tasks are due at the moment of the query
  for (let start = 0; start < count; start += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, count - start) }, (_, j) => {
        const i = start + j;
        const createdAt = i % dueEvery === 0 ? now - config.userUpdateIntervalMs - 1_000 : now;
        return repo.create(`bench_${i}`, task(i), '', createdAt);
      }),
    );
  }
  const byIndex = () => redis.zrangebyscore(keys.updatesIndex(0), '-inf', now, 'LIMIT', 0, 10_000);
  const byScan = () => scanDue(redis, keys, config, now);
  const [indexed, scanned] = [await byIndex(), await byScan()];
  if (indexed.length !== scanned.length || indexed.some((id) => !scanned.includes(id)))
    throw new Error('index and scan disagree on which tasks are due');
  // Interleaved, so both see the same machine state.
  const indexTimes: number[] = [];
  const scanTimes: number[] = [];
  for (let round = 0; round < 7; round++) {
    indexTimes.push(await timedMs(byIndex));
    scanTimes.push(await timedMs(byScan));
  }
  // Server-wide counts on a shared Redis: the cleanest of several windows is kept.
  const indexCommands = await measureCommands(redis, 1, 5, byIndex);
  const scanCommands = await measureCommands(redis, 1, 3, byScan);
  const ratio = median(scanTimes) / median(indexTimes);
  return {
    value: Math.round(ratio),
    unit: '× (scan ms / index ms)',
    note:
      `${count} active tasks, ${indexed.length} due: the update index (one ZRANGEBYSCORE) vs SCAN + HMGET of ` +
      `every task record, same run, median of 7; commands from INFO commandstats.` +
      noiseNote(scanCommands),
    details: {
      activeTasks: count,
      due: indexed.length,
      indexMs: Number(median(indexTimes).toFixed(3)),
      scanMs: Number(median(scanTimes).toFixed(1)),
      indexCommands: indexCommands.perOp,
      scanCommands: scanCommands.perOp,
      commandRatio: Math.round(scanCommands.totalPerOp / indexCommands.totalPerOp),
    },
  };
}

/** What selection without the index costs: every task record read to find the due ones. */
async function scanDue(redis: Redis, keys: RedisKeys, config: VigilConfig, now: number): Promise<string[]> {
  const due: string[] = [];
  const pattern = `${keys.shardBase(0)}:task:*`;
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    cursor = next;
    const records = found.filter((key) => !key.slice(pattern.length - 1).includes(':'));
    const pipeline = redis.pipeline();
    for (const key of records) pipeline.hmget(key, 'id', 'status', 'createdAt', 'lastUserUpdateAt');
    for (const [, fields] of (await pipeline.exec()) ?? []) {
      const [id, status, createdAt, last] = fields as (string | null)[];
      if (!id || !status || TERMINAL_STATUSES.includes(status as never)) continue;
      const slot = updateSlot(Number(createdAt), now, config.userUpdateIntervalMs);
      const lastSlot = last ? updateSlot(Number(createdAt), Number(last), config.userUpdateIntervalMs) : 0;
      if (slot >= 1 && slot > lastSlot) due.push(id);
    }
  } while (cursor !== '0');
  return due;
}

/**
 * The receiver runs in a child process so that it does not share the notifier's event loop: it
 * counts distinct Vigil-Message-Id values and reports when it has them all.
 */
const RECEIVER = `
const ids = new Set();
const expected = Number(process.argv[1]);
const server = require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    ids.add(String(req.headers['vigil-message-id']));
    res.writeHead(200).end();
    if (ids.size === expected) process.send({ done: Date.now() });
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

async function startReceiver(
  expected: number,
): Promise<{ url: string; done: Promise<number>; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', RECEIVER, String(expected)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let finished: (at: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (finished = resolve));
  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (message: { port?: number; done?: number }) => {
      if (message.port) resolve(message.port);
      if (message.done) finished(message.done);
    });
    child.on('exit', (code) => reject(new Error(`webhook receiver exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/hook`, done, child };
}

async function webhookThroughput(redis: Redis, keys: RedisKeys, base: VigilConfig, messages: number) {
  const receiver = await startReceiver(messages);
  // A long update interval keeps the cadence out of this measurement: only event messages flow.
  const config = { ...base, userUpdateIntervalMs: 3_600_000 };
  const repo = new TaskRepository(redis, keys, config);
  const tasks = await Promise.all(
    Array.from({ length: 50 }, async (_, i) => (await repo.create(`hook_${i}`, task(i, receiver.url))).task),
  );
  const notifier = createNotifier(redis, keys, sectionsOf(config));
  await notifier.start();
  try {
    const started = Date.now();
    const pipeline = redis.pipeline();
    for (let i = 0; i < messages; i++) {
      const target = tasks[i % tasks.length];
      const data = { kind: 'agent' as const, text: `message ${i}` };
      const fields = {
        type: 'task.message' as const,
        taskId: target.id,
        tenantId: 'bench',
        attempt: 1,
        at: Date.now(),
        status: 'running',
        from: 'running',
        data,
      };
      pipeline.xadd(keys.events(0), '*', ...taskEventFields(fields));
    }
    await pipeline.exec();
    let timer: NodeJS.Timeout | undefined;
    const finishedAt = await Promise.race([
      receiver.done,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error('webhook bench timed out')), 120_000)),
      ),
    ]).finally(() => clearTimeout(timer));
    const seconds = (finishedAt - started) / 1000;
    return {
      value: Math.round(messages / seconds),
      unit: 'messages/s',
      note:
        `one notifier (consumer group, append script, outbox, BullMQ webhook workers at concurrency ` +
        `${config.webhookConcurrency}): ${messages} agent messages from XADD to a signed POST received by a ` +
        `receiver in a child process, all distinct ids.`,
      details: { messages, seconds: Number(seconds.toFixed(2)), tasks: tasks.length },
    };
  } finally {
    await notifier.stop();
    receiver.child.kill();
  }
}

async function cleanup(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    if (found.length > 0) await redis.unlink(...found);
    cursor = next;
  } while (cursor !== '0');
}
