import { ModelProviders, type GenerateRequest, type ModelProvider, type SliceRunner } from '@vigil/agent';
import type { ActionRecord } from '@vigil/tasks';
import type { CatalogToolGateway } from '@vigil/tools';
import { FAKE_SERVER, RedisTestContext, SliceRunnerHarness, testGateway } from '@vigil/testing';

const PAGE_A = 'http://127.0.0.1:9/a.html';
const PAGE_B = 'http://127.0.0.1:9/b.html';

/**
 * A stateful tool server on the real runtime (docs/missions.md, "Stateful tool servers"): a real
 * stdio MCP server that holds a page only as long as its process, marked `stateful` in a real
 * catalog, its `navigate` run as a read. Slices of one mission run on two Workers (two runners,
 * each with its own gateway and so its own server process) and across a SIGKILL of the server:
 * every opening after a change says the server restarted, why, and where it was, and the scripted
 * agent, following it, opens the page again — a real navigation, never answered from the journal.
 */
describe('a mission on a stateful tool server', () => {
  const ctx = new RedisTestContext('stateful-server', {
    SLICE_MAX_STEPS: '2',
    GLOBAL_SPEND_LIMIT_USD: '',
    HEARTBEAT_INTERVAL_MS: '30000',
  });
  const harness = new SliceRunnerHarness(ctx);
  const { sections, tasks } = harness;
  const gateways: CatalogToolGateway[] = [];
  /** Each slice's opening, as the provider was given it. */
  const openings: string[] = [];
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await ctx.close();
  });

  /** Providers that note the opening of each slice before the scripted agent plays it. */
  class WatchedProviders extends ModelProviders {
    override create(model: string, run: Parameters<ModelProviders['create']>[1]): ModelProvider {
      const inner = super.create(model, run);
      let first = true;
      return Object.assign(Object.create(inner) as ModelProvider, {
        generate: (request: GenerateRequest) => {
          if (first && run.followsRestartNotice) openings.push(String(request.messages[0]?.content));
          if (first && !run.followsRestartNotice) openings.push('');
          first = false;
          return inner.generate(request);
        },
      });
    }
  }

  function worker(workerId: string) {
    const gateway = testGateway({
      mcpServers: {
        browser: {
          command: process.execPath,
          args: [FAKE_SERVER, 'browser'],
          stateful: true,
          reads: ['navigate'],
        },
      },
      tenants: { acme: { allow: ['browser'] } },
    });
    gateways.push(gateway);
    const kinds = harness.kinds(gateway);
    const providers = new WatchedProviders(sections.models, sections.clocks);
    const runner = harness.runner(gateway, { kinds, workerId, providers });
    const create = harness.createUseCase(kinds);
    return { runner, create, gateway };
  }

  async function slice(runner: SliceRunner, taskId: string): Promise<string> {
    const task = (await tasks.get(taskId))!;
    return runner.run({ taskId, attempt: task.attempt, slice: task.sliceCount + 1, reason: 'next_slice' });
  }

  const actionsOf = async (taskId: string): Promise<ActionRecord[]> =>
    (await ctx.redis.lrange(ctx.keys.actions(taskId), 0, -1)).map((raw) => JSON.parse(raw) as ActionRecord);

  it('says after a Worker change and after a server restart that the page is gone, and the agent reopens it', async () => {
    const a = worker('worker-a');
    const b = worker('worker-b');
    const { task } = await a.create.execute('acme', {
      kind: 'mission',
      input: { goal: 'Walk two pages', tools: ['browser'], evidence: 'findings_only' },
      exitCriteria: [{ check: 'findings_count', expected: 1 }],
      agent: {
        scripted: {
          plan: [
            { tool: 'browser.navigate', args: { url: PAGE_A } },
            { tool: 'browser.where', args: { as: '1' } },
            { tool: 'browser.navigate', args: { url: PAGE_B } },
            { tool: 'browser.where', args: { as: '2' } },
            { tool: 'browser.where', args: { as: '3' } },
            { tool: 'browser.where', args: { as: '4' } },
            { tool: 'browser.where', args: { as: '5' } },
          ],
        },
      },
    });

    // Slice 1 on worker A: page A opened and read, in A's server session.
    expect(await slice(a.runner, task.id)).toBe('next_slice');
    let actions = await actionsOf(task.id);
    expect(actions.map((x) => x.result)).toEqual([
      { content: [{ type: 'text', text: `Page URL: ${PAGE_A}` }] },
      { content: [{ type: 'text', text: `Page URL: ${PAGE_A}` }] },
    ]);
    const sessionA = actions[0].serverSession;
    expect(sessionA).toEqual(expect.any(String));
    expect(actions[1].serverSession).toBe(sessionA);

    // Slice 2 on worker B, whose server never saw page A: the opening says so and names page A.
    expect(await slice(b.runner, task.id)).toBe('next_slice');
    expect(openings[1]).toContain('## Tool servers restarted');
    expect(openings[1]).toContain(
      'The "browser" tool server was restarted since this task last used it (the task moved to another Worker)',
    );
    expect(openings[1]).toContain('open pages, logins');
    expect(openings[1]).toContain(`Its last known location: ${PAGE_A} (step #1, browser__navigate)`);
    actions = await actionsOf(task.id);
    // The agent reopened page A first (really: a read, not answered from the journal), then went on.
    expect(actions.slice(2).map((x) => [x.tool, x.args, x.result])).toEqual([
      ['browser__navigate', { url: PAGE_A }, { content: [{ type: 'text', text: `Page URL: ${PAGE_A}` }] }],
      ['browser__navigate', { url: PAGE_B }, { content: [{ type: 'text', text: `Page URL: ${PAGE_B}` }] }],
    ]);
    expect(actions[2].deduplicated).toBeUndefined();
    expect(actions[2].serverSession).not.toBe(sessionA);
    expect(await ctx.redis.hlen(ctx.keys.journal(task.id))).toBe(0);

    // Slice 3 on worker B, same session: nothing to say.
    expect(await slice(b.runner, task.id)).toBe('next_slice');
    expect(openings[2]).toBe('');

    // B's server dies between slices: slice 4 says the server process restarted, at page B.
    const pid = b.gateway.connection('browser')!.pid!;
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && b.gateway.connection('browser')!.pid === pid; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await slice(b.runner, task.id)).toBe('next_slice');
    expect(openings[3]).toContain('(the server process restarted)');
    expect(openings[3]).toContain(`Its last known location: ${PAGE_B}`);
    actions = await actionsOf(task.id);
    const reopened = actions.findLast((x) => x.tool === 'browser__navigate')!;
    expect(reopened.args).toEqual({ url: PAGE_B });
    expect(actions.at(-1)!.result).toEqual({ content: [{ type: 'text', text: `Page URL: ${PAGE_B}` }] });
  });
});
