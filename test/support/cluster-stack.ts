import type { Redis } from 'ioredis';
import { MetaSandbox } from '@vigil/meta-sandbox';
import { campaignBuildDemoInput } from '@vigil/builtin-kinds/campaign-build/demo-input';
import { masterNodes, scanKeys } from '@vigil/redis';
import { LocalRedisCluster, RedisTestContext, VigilStack } from '@vigil/testing';

import { CAMPAIGN_OBJECTS, objectsOf } from './sandbox-objects';

export { CAMPAIGN_OBJECTS };

/**
 * A local 3-master cluster, the Meta sandbox and Vigil's apps as processes on it (an API, two
 * Workers, a Watcher and a notifier) with SHARDS=6 and compressed timings: what the cluster process
 * tests share. `close` stops all of it, failed test or not.
 */
export class ClusterStack {
  cluster!: LocalRedisCluster;
  ctx!: RedisTestContext;
  stack!: VigilStack;
  readonly sandbox = new MetaSandbox({ accessToken: 'sandbox-token', seed: 11 });

  async start(name: string, env: Record<string, string> = {}): Promise<this> {
    this.cluster = await LocalRedisCluster.start();
    this.ctx = new RedisTestContext(name, { ...this.cluster.env(), SHARDS: '6' });
    const { baseUrl } = await this.sandbox.listen(0);
    this.stack = new VigilStack(this.ctx, {
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '3000',
      WATCHER_INTERVAL_MS: '250',
      USER_UPDATE_INTERVAL_MS: '600000',
      META_ACCESS_TOKEN: 'sandbox-token',
      META_API_BASE_URL: baseUrl,
      SHARDS: '6',
      ...env,
    });
    await this.stack.startAll(['api', 'worker', 'worker', 'watcher', 'notifier']);
    return this;
  }

  async close(): Promise<void> {
    await this.stack?.stopAll().catch(() => undefined);
    await this.sandbox.close().catch(() => undefined);
    await this.ctx?.close().catch(() => undefined);
    await this.cluster?.stop();
  }

  /**
   * A stack for the enclosing `describe`: started before its tests (named `name`, for the key
   * prefix), closed after them.
   */
  static forSuite(name: string): ClusterStack {
    const env = new ClusterStack();
    beforeAll(() => env.start(name), 90_000);
    afterAll(() => env.close());
    return env;
  }

  /**
   * Creates, through the API, `builds` campaign builds (each on its own ad account) and `noops` noop
   * tasks with `noopInput`. Their ids, the builds first, and the builds' ad accounts. A refused create
   * fails the test that asked for it.
   */
  async createBuildsAndNoops(
    builds: number,
    noops: number,
    noopInput: { steps: number; stepMs: number },
  ): Promise<{ ids: string[]; accounts: string[] }> {
    const accounts = Array.from({ length: builds }, (_, n) => `act_${2_000_000 + n}`);
    const bodies = [
      ...accounts.map((adAccountId) => ({
        kind: 'campaign_build',
        input: campaignBuildDemoInput({ adAccountId }),
      })),
      ...Array.from({ length: noops }, () => ({ kind: 'noop', input: noopInput })),
    ];
    const ids: string[] = [];
    for (const body of bodies) {
      const created = await this.stack.api!.post('/v1/tasks', body);
      if (created.status !== 201)
        throw new Error(`POST /v1/tasks ${body.kind}: ${created.status} ${JSON.stringify(created.body)}`);
      ids.push(created.body.id as string);
    }
    return { ids, accounts };
  }

  /** The ids GET /v1/tasks lists (read from every shard's index), sorted. */
  async listedIds(): Promise<string[]> {
    const listed = await this.stack.api!.get('/v1/tasks?limit=100');
    return (listed.body.data as { id: string }[]).map((task) => task.id).sort();
  }

  /** The sandbox's objects of one ad account (`act_<digits>`), by type. */
  objectsOf(accountId: string): typeof CAMPAIGN_OBJECTS {
    return objectsOf(this.sandbox, accountId);
  }

  duplicates(): unknown[] {
    return this.sandbox.duplicates();
  }

  /** How many of this test's keys each master holds, and of which shards. */
  async keysPerMaster(): Promise<{ port: number; keys: number; shards: number[] }[]> {
    return Promise.all(
      masterNodes(this.ctx.redis).map(async (node: Redis) => {
        const shards = new Set<number>();
        let keys = 0;
        for await (const batch of scanKeys(node, `${this.ctx.prefix}*`)) {
          keys += batch.length;
          for (const key of batch) {
            const shard = /\{s(\d+)\}/.exec(key)?.[1];
            if (shard !== undefined) shards.add(Number(shard));
          }
        }
        return { port: Number(node.options.port), keys, shards: [...shards].sort() };
      }),
    );
  }
}
