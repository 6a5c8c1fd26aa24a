import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RetryEntry, StructuredFailure } from '@vigil/tasks';
import { RedisTestContext, VigilStack } from '@vigil/testing';
import { MissionWorld, TENANT, TICKET_TITLE } from '../../support/mission-fixture';

/**
 * The tenant's allow list holds at call time, not only at creation (docs/missions.md, "The
 * mission kind": the Worker resolves a task's tools once per slice and checks the allow list
 * again). The API still runs the catalog the mission was created under, which lets the tenant use
 * `create_ticket` and `files`; the operator then takes both away in a new catalog file, and the
 * Worker and the Watcher restart on it. The mission already queued must not reach either tool: each
 * attempt fails its turn as a tool error naming the tool, the retries end in a failure that says
 * so, and the tracker and the directory see nothing.
 */
describe('a tool taken out of the allow list after creation', () => {
  const ctx = new RedisTestContext('missions-allow');
  const world = new MissionWorld();
  let stack: VigilStack;
  let revokedCatalog: string;

  beforeAll(async () => {
    await world.start();
    const catalog = JSON.parse(readFileSync(world.catalogPath, 'utf8')) as {
      tenants: Record<string, { allow: string[] }>;
    };
    catalog.tenants[TENANT] = { allow: ['memory'] };
    revokedCatalog = join(world.dir, 'vigil.tools.revoked.json');
    writeFileSync(revokedCatalog, JSON.stringify(catalog, null, 2));
    stack = new VigilStack(ctx, {
      API_KEYS: `${TENANT}:test-key-0001`,
      ...world.env(),
      HEARTBEAT_INTERVAL_MS: '200',
      STALE_AFTER_MS: '3000',
      WATCHER_INTERVAL_MS: '300',
      USER_UPDATE_INTERVAL_MS: '60000',
      RETRY_POLICY: 'opus,gemini',
    });
    // The API as it was when the mission was created; the rest restarted on the new catalog.
    await stack.start('api');
    const revoked = { VIGIL_TOOLS: revokedCatalog };
    await Promise.all([stack.start('watcher', revoked), stack.start('worker', revoked)]);
  });
  afterAll(async () => {
    await stack.stopAll();
    await world.close();
    await ctx.close();
  });
  beforeEach(() => world.reset());

  it('refuses the call at run time: failed attempts naming the tool, nothing reaches the tracker or the files', async () => {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'mission',
      title: 'File the quickstart ticket',
      input: { goal: 'Write the summary and file the ticket.', tools: ['files.write_file', 'create_ticket'] },
      exitCriteria: [world.ticketFiledOnce()],
      agent: {
        scripted: {
          plan: [
            { tool: 'files.write_file', args: { path: join(world.workDir, 'summary.md'), content: 'x' } },
            { tool: 'create_ticket', args: { title: TICKET_TITLE } },
            { tool: 'finish_task', args: { summary: 'Filed.' } },
          ],
        },
      },
    });
    // Creation ran under the old catalog: both tools were the tenant's then.
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const failed = await stack.waitForTask(
      id,
      (t) => ['failed', 'completed', 'waiting_on_human'].includes(t.status),
      45_000,
      'the end',
    );
    expect(failed.status).toBe('failed');
    // The first attempt and both retries of the policy: each a tool error naming the forbidden tool.
    const history: RetryEntry[] = failed.retryHistory;
    expect(history.map((entry) => entry.reason)).toEqual(['tool_error', 'tool_error', 'tool_error']);
    for (const entry of history)
      expect(entry.detail).toContain('tool "files.write_file" is not allowed for tenant "acme"');
    const failure = failed.failure as StructuredFailure;
    expect(failure.reason).toBe('policy_exhausted');
    expect(JSON.stringify(failure)).toContain('files.write_file');

    // Nothing was called: no action recorded, no file, no ticket, not even a create attempt.
    expect(await ctx.redis.llen(ctx.keys.actions(id))).toBe(0);
    expect(world.files()).toEqual({});
    expect(world.tracker.stats()).toEqual({ tickets: 0, createCalls: 0 });
  }, 90_000);

  it('runs a mission whose tools the new catalog still allows: the refusals above are the allow list, not a broken stack', async () => {
    const created = await stack.api!.post('/v1/tasks', {
      kind: 'mission',
      title: 'Remember the quickstart',
      input: { goal: 'Remember what the quickstart lacks.', tools: ['memory'] },
      exitCriteria: [
        {
          check: 'tool_result',
          args: {
            tool: 'memory.open_nodes',
            arguments: { names: ['Quickstart'] },
            pointer: '/structuredContent/entities/0/name',
          },
          expected: 'Quickstart',
        },
      ],
      agent: {
        scripted: {
          plan: [
            {
              tool: 'memory.create_entities',
              args: {
                entities: [{ name: 'Quickstart', entityType: 'document', observations: ['assumes Redis'] }],
              },
            },
            { tool: 'finish_task', args: { summary: 'Remembered.' } },
          ],
        },
      },
    });
    expect(created.status).toBe(201);
    const done = await stack.waitForTask(
      created.body.id as string,
      (t) => ['failed', 'completed', 'waiting_on_human'].includes(t.status),
      45_000,
      'the end',
    );
    expect({ status: done.status, passed: done.verification?.passed }).toEqual({
      status: 'completed',
      passed: true,
    });
    expect(world.memoryEntities().map((entity) => entity.name)).toEqual(['Quickstart']);
    expect(world.tracker.stats()).toEqual({ tickets: 0, createCalls: 0 });
  }, 90_000);
});
