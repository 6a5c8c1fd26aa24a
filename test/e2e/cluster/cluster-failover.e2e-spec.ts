import { CAMPAIGN_OBJECTS, ClusterStack } from '../../support/cluster-stack';

/**
 * A master SIGKILLed while campaign builds and noop tasks run on every shard: its replica is
 * promoted (cluster-node-timeout 1 s), commands to its slots are retried by the Cluster clients or
 * fail a turn the Watcher retries, and the attempt fence and the write journal keep every external
 * write single (docs/operations.md, "Past one machine").
 */
describe('a Redis Cluster master killed mid-run', () => {
  const env = ClusterStack.forSuite('cluster-failover');

  it('every task completes verified, no object is created twice, no task is lost', async () => {
    // Slow enough that the kill lands mid-build: each Graph API call takes 20–40 ms.
    env.sandbox.setFaults({ latencyMs: { min: 20, max: 40 } });
    const { ids, accounts } = await env.createBuildsAndNoops(3, 12, { steps: 60, stepMs: 40 });
    // Mid-run: every campaign build has started writing, none has finished.
    await env.stack.waitForTask(ids[0], (t) => (t.completedUnits ?? 0) >= 20, 30_000, '20 steps');
    const before = await Promise.all(ids.map((id) => env.stack.tasks.get(id)));
    for (const task of before.slice(0, accounts.length)) expect(task!.completedUnits).toBeLessThan(134);

    const masters = await env.cluster.masterPorts();
    const victim = (await env.keysPerMaster()).sort((a, b) => b.keys - a.keys)[0].port;
    expect(masters).toContain(victim);
    const failover = await env.cluster.killMaster(victim);
    expect(failover.promoted).not.toBe(victim);

    for (const id of ids) {
      const task = await env.stack.waitForTask(
        id,
        (t) => t.status === 'completed' || t.status === 'failed',
        120_000,
        'an end',
      );
      expect({ id, status: task.status, passed: task.verification?.passed }).toEqual({
        id,
        status: 'completed',
        passed: true,
      });
    }
    const after = await Promise.all(ids.map((id) => env.stack.tasks.get(id)));
    console.log(
      JSON.stringify({
        failover,
        retried: after.filter((task) => task!.retryHistory.length > 0).length,
        reasons: after.flatMap((task) => task!.retryHistory.map((entry) => entry.reason)),
      }),
    );
    // Each step recorded once, even where a script's reply was lost to the kill and retried.
    for (const id of ids.slice(0, accounts.length)) {
      const actions = (await env.ctx.redis.lrange(env.ctx.keys.actions(id), 0, -1)).map(
        (raw) => JSON.parse(raw) as { key?: string; error?: unknown },
      );
      const succeeded = actions.filter((action) => action.key && !action.error).map((action) => action.key);
      expect(new Set(succeeded).size).toBe(134);
    }
    for (const account of accounts) expect(env.objectsOf(account)).toEqual(CAMPAIGN_OBJECTS);
    expect(env.duplicates()).toEqual([]);
    // 0 lost: every task is still listed, from every shard's index.
    expect(await env.listedIds()).toEqual([...ids].sort());
    const perMaster = await env.keysPerMaster();
    expect(perMaster.map((master) => master.port)).toContain(failover.promoted);
    expect(perMaster.flatMap((master) => master.shards).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    // The apps stayed up through the failover.
    for (const process of env.stack.processes) expect(process.child.exitCode).toBeNull();
  }, 180_000);
});
