import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterStack } from '../../support/cluster-stack';

const READS = ['', '/actions', '/messages', '/findings', '/report'] as const;

/** Retention on a 3-master Redis Cluster: every shard's sweep archives its tasks, each slot on its own master. */
describe('archives on a 3-master Redis Cluster with SHARDS=6 (real processes)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'vigil-cluster-archive-'));
  const env = new ClusterStack();
  beforeAll(
    () =>
      env.start('cluster-archive', {
        // Long enough to read every task while it is live, short enough for a test.
        TASK_RETENTION_MS: '15000',
        OBJECT_STORE_URL: `file://${directory}`,
        RATE_LIMIT_PER_MINUTE: '100000',
      }),
    90_000,
  );
  afterAll(async () => {
    await env.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('archives campaign builds and noop tasks from every shard and answers every read from the archive', async () => {
    const { ids } = await env.createBuildsAndNoops(2, 20, { steps: 5, stepMs: 1 });
    const read = async (id: string): Promise<Record<string, string>> => {
      const bodies: Record<string, string> = {};
      for (const route of READS) {
        const response = await fetch(`${env.stack.api!.baseUrl}/v1/tasks/${id}${route}`, {
          headers: { authorization: 'Bearer test-key-0001' },
        });
        expect([id, route, response.status]).toEqual([id, route, 200]);
        bodies[route] = await response.text();
      }
      return bodies;
    };
    const before = new Map<string, Record<string, string>>();
    for (const id of ids) {
      await env.stack.waitForTask(id, (t) => t.status === 'completed', 90_000, 'completion');
      before.set(id, await read(id));
    }
    const shards = new Set(ids.map((id) => env.ctx.keys.shardOf(id)));
    expect(shards.size).toBeGreaterThan(2);

    const deadline = Date.now() + 120_000;
    for (const id of ids)
      while (await env.ctx.redis.exists(env.ctx.keys.task(id))) {
        if (Date.now() > deadline) throw new Error(`task ${id} still in Redis`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }

    for (const id of ids) {
      const after = await read(id);
      expect(JSON.parse(after[''])).toEqual({ ...JSON.parse(before.get(id)!['']), archived: true });
      for (const route of READS.slice(1))
        expect([id, route, after[route]]).toEqual([id, route, before.get(id)![route]]);
    }
    // No task's own keys are left on any master.
    for (const id of ids)
      for (const key of [env.ctx.keys.actions(id), env.ctx.keys.messages(id), env.ctx.keys.journal(id)])
        expect([key, await env.ctx.redis.exists(key)]).toEqual([key, 0]);
  }, 240_000);
});
