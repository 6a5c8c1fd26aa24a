import { ChildKeys, ChildTaskRepository, TaskRepository } from '@vigil/tasks';
import { BenchContext } from './lib/context';
import type { Bench, BenchResults } from './lib/result';
import { median, percentile, round, timed } from './lib/stats';
import { BENCH_CLAIM, benchLifecycle, noopTask } from './lib/tasks';

const CONCURRENT = 100;

/**
 * Issue 13: children registration under contention (docs/missions.md, "Child missions"). Per
 * round, one parent and 100 created children, then 100 register-child calls at once on one
 * connection each side of nothing but Redis; then the running children end in waves, every end
 * freeing a place in its terminal transition. Reports registration time, that all registered, and
 * the most children ever holding a place (sampled after each wave).
 */
export const runChildrenBench: Bench = async ({ quick, log }) => {
  const ctx = new BenchContext('children', { SHARDS: '4', MAX_PARALLEL_CHILDREN: '3' });
  try {
    const connection = ctx.connect();
    const tasks = new TaskRepository(connection, ctx.keys, ctx.config);
    const children = new ChildTaskRepository(connection, ctx.keys, ctx.config);
    const lifecycle = benchLifecycle(connection, ctx.keys, ctx.config);
    const childKeys = new ChildKeys(ctx.keys);
    const rounds = quick ? 3 : 10;
    const registerMs: number[] = [];
    const perCallMs: number[] = [];
    const drainMs: number[] = [];
    let registered = 0;
    let maxRunning = 0;
    for (let r = 0; r < rounds; r++) {
      const { task: parent } = await tasks.create(`bench-parent-${r}`, noopTask(1));
      await lifecycle.claimSlice(parent, { attempt: 1, ...BENCH_CLAIM });
      const ids = Array.from({ length: CONCURRENT }, (_, i) => children.childId(parent.id, `subtask:${i}`));
      await Promise.all(ids.map((id) => tasks.create(id, { ...noopTask(1), parentId: parent.id })));
      const { ms, result } = await timed(() =>
        Promise.all(
          ids.map(async (id) => {
            const t0 = performance.now();
            const registration = await children.register(parent.id, id);
            perCallMs.push(performance.now() - t0);
            return registration;
          }),
        ),
      );
      registerMs.push(ms);
      registered += result.filter((registration) => registration.registered).length;
      maxRunning = Math.max(maxRunning, await connection.scard(childKeys.running(parent.id)));
      await lifecycle.awaitChildren(parent, { attempt: 1, slice: 1 });
      const drain = await timed(async () => {
        for (;;) {
          const running = await connection.smembers(childKeys.running(parent.id));
          if (running.length === 0) break;
          await Promise.all(running.map((id) => lifecycle.stop({ id, tenantId: parent.tenantId })));
          maxRunning = Math.max(maxRunning, await connection.scard(childKeys.running(parent.id)));
        }
      });
      drainMs.push(drain.ms);
      const after = await tasks.get(parent.id);
      if (after?.status !== 'queued') throw new Error(`parent ${parent.id} is ${after?.status}, not queued`);
      log(`children: round ${r + 1}/${rounds}: ${round(ms, 1)} ms to register ${CONCURRENT}`);
    }
    const results: BenchResults = {
      'children.register_100_concurrent_ms': {
        value: round(median(registerMs), 1),
        unit: 'ms (100 register-child calls at once, median of rounds)',
        note: `${rounds} rounds on SHARDS=4, children on their parent's shard; one connection, Redis on this machine`,
        details: {
          per_call_p50_ms: round(percentile(perCallMs, 50), 2),
          per_call_p99_ms: round(percentile(perCallMs, 99), 2),
        },
      },
      'children.all_registered': {
        value: registered === rounds * CONCURRENT ? 'yes' : `no (${registered} of ${rounds * CONCURRENT})`,
        unit: '',
        note: 'every concurrent registration registered (register-child.lua, atomic per parent)',
        target: 'yes',
      },
      'children.max_running': {
        value: maxRunning,
        unit: 'children',
        note: 'most children holding a place, sampled after registration and after each wave of ends (MAX_PARALLEL_CHILDREN=3)',
        target: '<= 3',
      },
      'children.drain_100_ms': {
        value: round(median(drainMs), 1),
        unit: 'ms (100 children ended in waves of 3, each end releasing the next; median)',
        note: 'terminal transitions that free a place and, for the last, queue the waiting parent',
      },
    };
    return results;
  } finally {
    await ctx.close();
  }
};
