import { encodeNewTask } from '@vigil/tasks';
import type { BenchContext } from './context';
import { BENCH_TENANT, noopTask } from './tasks';

const BATCH = 1000;
const HOUR = 3_600_000;

export const seededTaskId = (index: number) => `sw-${index}`;

/**
 * Writes healthy `running` tasks [from, to) straight into the layout create-task.lua and a
 * queued→running transitionTask leave behind: the task hash, the tenant index and its `running`
 * status index, the deadline index (heartbeat due an hour ahead), the expiry and user-update
 * indexes. Pipelined, one round trip per 1000 tasks.
 */
export async function seedRunningTasks(
  ctx: BenchContext,
  from: number,
  to: number,
  now = Date.now(),
): Promise<void> {
  const template = noopTask(100);
  for (let start = from; start < to; start += BATCH) {
    const pipeline = ctx.redis.pipeline();
    const members: Record<string, (string | number)[]> = {};
    const add = (key: string, score: number, id: string) => (members[key] ??= []).push(score, id);
    for (let i = start; i < Math.min(to, start + BATCH); i++) {
      const id = seededTaskId(i);
      const shard = ctx.keys.shardOf(id);
      const created = now - 60_000;
      pipeline.hset(ctx.keys.task(id), {
        ...encodeNewTask(id, template, created),
        requestHash: '',
        status: 'running',
        startedAt: String(created + 10),
        updatedAt: String(now),
        lastHeartbeatAt: String(now),
        currentStep: 'noop_step step:0',
        sliceCount: '1',
        workerId: 'bench-seeded-worker',
      });
      add(ctx.keys.tenantIndex(shard, BENCH_TENANT), created, id);
      add(ctx.keys.tenantStatusIndex(shard, BENCH_TENANT, 'running'), created, id);
      add(ctx.keys.deadlineIndex(shard), now + HOUR, id);
      add(ctx.keys.expiryIndex(shard), created + ctx.config.taskMaxDurationMs + HOUR, id);
      add(ctx.keys.updatesIndex(shard), now + HOUR, id);
    }
    for (const [key, args] of Object.entries(members)) pipeline.zadd(key, ...args);
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([error]) => error);
    if (failed) throw failed[0];
  }
}

/**
 * What a Watcher without indexes would do: SCAN every task hash of the prefix, HGETALL each
 * (pipelined per SCAN page) and look at status and heartbeat. Returns how many it looked at.
 */
export async function naiveScan(
  ctx: BenchContext,
  now = Date.now(),
): Promise<{ tasks: number; stale: number }> {
  let cursor = '0';
  let tasks = 0;
  let stale = 0;
  do {
    const [next, keys] = await ctx.redis.scan(
      cursor,
      'MATCH',
      `${ctx.prefix}:*:task:*`,
      'COUNT',
      1000,
      'TYPE',
      'hash',
    );
    cursor = next;
    if (keys.length === 0) continue;
    const pipeline = ctx.redis.pipeline();
    for (const key of keys) pipeline.hgetall(key);
    for (const [, hash] of (await pipeline.exec()) ?? []) {
      const task = hash as Record<string, string>;
      tasks++;
      const active = task.status === 'running' || task.status === 'waiting_on_tool';
      if (active && now - Number(task.lastHeartbeatAt) >= ctx.config.staleAfterMs) stale++;
    }
  } while (cursor !== '0');
  return { tasks, stale };
}
