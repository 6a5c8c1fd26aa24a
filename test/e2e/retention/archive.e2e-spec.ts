import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisTestContext, startS3Server, VigilStack } from '@vigil/testing';

const READS = ['', '/actions', '/messages', '/findings', '/report'] as const;

/** The raw bodies of every read of a task, keyed by route (the view parsed, to compare all but `archived`). */
async function readAll(stack: VigilStack, id: string): Promise<Record<string, string>> {
  const bodies: Record<string, string> = {};
  for (const route of READS) {
    const response = await fetch(`${stack.api!.baseUrl}/v1/tasks/${id}${route}`, {
      headers: { authorization: 'Bearer test-key-0001' },
    });
    if (response.status !== 200)
      throw new Error(`GET ${id}${route}: ${response.status} ${await response.text()}`);
    bodies[route] = await response.text();
  }
  return bodies;
}

/** The tasks' own keys (BullMQ's finished jobs leave by their own age, docs/operations.md). */
async function keysOf(ctx: RedisTestContext, ids: Set<string>): Promise<string[]> {
  const keys = await ctx.redis.keys(`${ctx.prefix}*:task:*`);
  return keys.filter((key) => ids.has(/:task:([^:]+)/.exec(key)![1]));
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const TIMINGS = {
  HEARTBEAT_INTERVAL_MS: '200',
  STALE_AFTER_MS: '3000',
  WATCHER_INTERVAL_MS: '250',
  USER_UPDATE_INTERVAL_MS: '60000',
  // Long enough to read every task while it is live, short enough for a test.
  TASK_RETENTION_MS: '15000',
  ARCHIVE_BATCH_SIZE: '10',
  RATE_LIMIT_PER_MINUTE: '100000',
};

async function createNoops(stack: VigilStack, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'noop',
      title: `noop ${i}`,
      input: { steps: 3 },
    });
    expect(created.status).toBe(201);
    ids.push(created.body.id);
  }
  return ids;
}

/** Finished tasks leave Redis for the archive and answer every read from it, as before. */
function archiveRoundTrip(
  name: string,
  count: number,
  storeEnv: (ctx: RedisTestContext) => Promise<Record<string, string>>,
) {
  describe(`archive on ${name}`, () => {
    const ctx = new RedisTestContext(`archive-${name.replace(/\W+/g, '-')}`);
    afterAll(() => ctx.close());

    it(`archives ${count} finished tasks and serves each from the archive byte for byte`, async () => {
      const stack = new VigilStack(ctx, { ...TIMINGS, ...(await storeEnv(ctx)) });
      await stack.startAll(['api', 'watcher', 'worker']);
      const ids = await createNoops(stack, count);
      // Each read as soon as its task completes, well inside its retention.
      const before = new Map<string, Record<string, string>>();
      for (const id of ids) {
        await stack.waitForTask(id, (t) => t.status === 'completed', 60_000);
        before.set(id, await readAll(stack, id));
      }
      await waitUntil(
        'every task gone from Redis',
        async () => (await keysOf(ctx, new Set(ids))).length === 0,
      );

      for (const id of ids) {
        const after = await readAll(stack, id);
        const [live, archived] = [JSON.parse(before.get(id)!['']), JSON.parse(after[''])];
        expect(archived).toEqual({ ...live, archived: true });
        for (const route of READS.slice(1))
          expect([id, route, after[route]]).toEqual([id, route, before.get(id)![route]]);
      }
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await stack.api!.get(
          `/v1/tasks?archived=true&limit=50${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(page.status).toBe(200);
        listed.push(...page.body.data.map((task: { id: string }) => task.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(listed.sort()).toEqual([...ids].sort());
    }, 300_000);
  });
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

archiveRoundTrip('the file driver', 200, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-archive-'));
  dirs.push(dir);
  return { OBJECT_STORE_URL: `file://${dir}` };
});

archiveRoundTrip('the S3 driver', 60, async (ctx) => {
  const s3 = await startS3Server();
  ctx.onClose(() => s3.stop());
  return {
    OBJECT_STORE_URL: `s3://${s3.bucket}/vigil`,
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
  };
});
