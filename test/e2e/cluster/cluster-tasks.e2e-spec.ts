import { Queue } from 'bullmq';
import { Redis as IORedis, type Redis } from 'ioredis';
import { bullConnection } from '@vigil/queue';
import { CAMPAIGN_OBJECTS, ClusterStack } from '../../support/cluster-stack';

describe('Vigil on a 3-master Redis Cluster with SHARDS=6 (real processes)', () => {
  const env = ClusterStack.forSuite('cluster-tasks');

  it('completes campaign builds and noop tasks verified, with every master holding shards', async () => {
    const { ids, accounts } = await env.createBuildsAndNoops(2, 10, { steps: 20, stepMs: 5 });
    for (const id of ids) {
      const task = await env.stack.waitForTask(id, (t) => t.status === 'completed', 90_000, 'completion');
      expect(task.verification?.passed).toBe(true);
      expect(task.completedUnits).toBe(task.totalUnits);
    }
    for (const account of accounts) expect(env.objectsOf(account)).toEqual(CAMPAIGN_OBJECTS);
    expect(env.duplicates()).toEqual([]);

    // The notifier consumed every shard's stream: each task's final message is in its log. It
    // reads the events on its own, after the Watcher's move: waited for, not assumed there yet.
    for (const id of ids) {
      const deadline = Date.now() + 30_000;
      let shown = '';
      while (!shown.includes('complete') && Date.now() < deadline) {
        if (shown) await new Promise((resolve) => setTimeout(resolve, 100));
        shown = JSON.stringify((await env.stack.api!.get(`/v1/tasks/${id}/messages`)).body);
      }
      expect(shown).toContain('complete');
    }
    // Listings read every shard's index on every master.
    expect(await env.listedIds()).toEqual([...ids].sort());

    const perMaster = await env.keysPerMaster();
    expect(perMaster).toHaveLength(3);
    for (const master of perMaster) {
      expect(master.keys).toBeGreaterThan(0);
      expect(master.shards.length).toBeGreaterThan(0);
    }
    expect(perMaster.flatMap((master) => master.shards).sort()).toEqual([0, 1, 2, 3, 4, 5]);

    // Nothing went to the single Redis of REDIS_URL: every connection was a Cluster client.
    const single = new IORedis(env.ctx.config.redisUrl, { maxRetriesPerRequest: 1 });
    try {
      expect((await single.scan('0', 'MATCH', `${env.ctx.prefix}*`, 'COUNT', 100_000))[1]).toEqual([]);
    } finally {
      single.disconnect();
    }

    // Metrics read every shard's indexes and queues too (one pipeline per slot on a cluster).
    for (const app of env.stack.processes.filter((p) => p.name === 'api' || p.name === 'notifier')) {
      const metrics = await fetch(`http://127.0.0.1:${app.port}/metrics`);
      expect({ app: app.name, status: metrics.status }).toEqual({ app: app.name, status: 200 });
      if (app.name === 'api')
        expect(await metrics.text()).toMatch(/vigil_tasks\{tenant="acme",status="completed"[^}]*\} 12\n/);
    }

    const health = await fetch(`http://127.0.0.1:${env.stack.processes[0].port}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      info: { redis: { status: 'up', clusterState: 'ok', masters: 3 } },
    });
  }, 120_000);

  it('stop aborts a hung call on whichever Worker holds the task', async () => {
    const created = await env.stack.api!.post('/v1/tasks', {
      kind: 'noop',
      input: { steps: 10 },
      agent: { scripted: { hangAtStep: 4 } },
    });
    const id = created.body.id as string;
    await env.stack.waitForTask(
      id,
      (t) => t.completedUnits === 3 && t.status === 'running',
      20_000,
      'the hang',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await env.stack.tasks.get(id))!).toMatchObject({ status: 'running', completedUnits: 3 });

    const connection = bullConnection(env.ctx.config) as Redis;
    const queue = new Queue(env.ctx.keys.sliceQueueName(env.ctx.keys.shardOf(id)), {
      connection,
      prefix: env.ctx.prefix,
    });
    try {
      const stoppedAt = Date.now();
      expect((await env.stack.api!.post(`/v1/tasks/${id}/stop`)).status).toBe(200);
      let finishedOn: number | undefined;
      while (!finishedOn && Date.now() - stoppedAt < 10_000) {
        finishedOn = (await queue.getJob(`${id}-a1-s1`))?.finishedOn;
        if (!finishedOn) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(finishedOn! - stoppedAt).toBeLessThan(1000);
      expect((await queue.getJob(`${id}-a1-s1`))?.returnvalue).toBe('aborted');
    } finally {
      await queue.close();
      await connection.quit();
    }
    const task = (await env.stack.tasks.get(id))!;
    expect(task).toMatchObject({ status: 'cancelled', completedUnits: 3, retryHistory: [] });
    expect(await env.ctx.redis.llen(env.ctx.keys.actions(id))).toBe(3);
  }, 60_000);
});
