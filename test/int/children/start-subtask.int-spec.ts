import { StartChildTaskUseCase } from '@vigil/control';
import { InvalidTaskInputError, subtaskStepKey } from '@vigil/tasks';
import { RedisTestContext, SliceRunnerHarness } from '@vigil/testing';
import { FakeCatalog } from '../../support/fake-catalog';

/**
 * `start_subtask`'s creation path against the real Redis and slice queue (docs/missions.md,
 * "Child missions"): the parent's limits on tools and agent, the same validation as POST /v1/tasks,
 * the child on the parent's shard and tenant, a replayed call making no second child, and the
 * fourth child held.
 */
describe('starting child missions', () => {
  const ctx = new RedisTestContext('start-subtask', {
    SHARDS: '4',
    MAX_PARALLEL_CHILDREN: '3',
    TOOLS_ALLOW_PRIVATE: 'true',
  });
  const harness = new SliceRunnerHarness(ctx);
  const { tasks, children, slices: turns } = harness;
  const create = harness.createUseCase(harness.kinds(new FakeCatalog().gateway));
  const start = new StartChildTaskUseCase(create);
  afterAll(() => ctx.close());

  const plan = [
    { tool: 'record_finding', args: { title: 'Found', body: 'It.' } },
    { tool: 'finish_task', args: { summary: 'done' } },
  ];
  const request = (n: number, extra: Record<string, unknown> = {}) => ({
    goal: `Part ${n}`,
    evidence: 'findings_only',
    exitCriteria: [{ check: 'findings_count', expected: 1 }],
    agent: { scripted: { plan } },
    ...extra,
  });
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidTaskInputError);
    return (error as InvalidTaskInputError).message;
  };

  it('makes children of the parent’s tenant and shard within its limits; a replay makes none', async () => {
    const { task: parent } = await create.execute('acme', {
      kind: 'mission',
      input: { goal: 'Split the work', tools: ['notes'] },
      exitCriteria: [{ check: 'children_completed', expected: true }],
      sandbox: true,
      agent: { scripted: { plan: [{ tool: 'finish_task', args: { summary: 'x' } }] } },
    });

    expect(await refusal(start.execute(parent, request(0, { tools: ['create_ticket'] }), 'k0'))).toMatch(
      /tools must be among the parent's \(notes\); not: create_ticket/,
    );
    expect(await refusal(start.execute(parent, request(0, { agent: { model: 'gemini' } }), 'k0'))).toMatch(
      /agent may only carry a scripted plan/,
    );
    expect(
      await refusal(
        start.execute(
          parent,
          request(0, { exitCriteria: [{ check: 'children_completed', expected: false }] }),
          'k0',
        ),
      ),
    ).toMatch(/children_completed\): expected must be true/);
    expect(await refusal(start.execute(parent, { ...request(0), goal: '' }, 'k0'))).toMatch(/goal/);

    const first = request(1);
    const key = subtaskStepKey(first);
    const started = await start.execute(parent, first, key);
    expect(started.placement).toBe('running');
    const child = (await tasks.get(started.childId))!;
    expect(child).toMatchObject({
      tenantId: 'acme',
      parentId: parent.id,
      kind: 'mission',
      sandbox: true,
      status: 'queued',
      input: { goal: 'Part 1', tools: ['notes'], evidence: 'findings_only' },
    });
    expect(ctx.keys.shardOf(child.id)).toBe(ctx.keys.shardOf(parent.id));
    expect(await turns.hasLiveJob({ taskId: child.id, attempt: 1, slice: 1 })).toBe(true);

    // The same call again (a retried turn): the same child, no second one.
    expect(await start.execute(parent, first, key)).toEqual(started);
    expect((await tasks.get(parent.id))!.children).toEqual({ total: 1, running: 1, done: 0 });

    const more = [];
    for (const n of [2, 3, 4]) more.push(await start.execute(parent, request(n), subtaskStepKey(request(n))));
    expect(more.map((c) => c.placement)).toEqual(['running', 'running', 'queued']);
    // The held child has no job: it is published when a place frees.
    expect(await turns.hasLiveJob({ taskId: more[2].childId, attempt: 1, slice: 1 })).toBe(false);
    expect((await children.list(parent.id)).map((c) => c.input)).toEqual(
      [1, 2, 3, 4].map((n) => expect.objectContaining({ goal: `Part ${n}` })),
    );
  });
});
