import { BUILT_IN_KINDS, noopKind } from '@vigil/builtin-kinds';
import {
  countRules,
  defineCheck,
  flagRules,
  KindBinder,
  KindRegistry,
  kindServices,
  type CheckContext,
  type TaskKind,
} from '@vigil/kinds';
import { ExitCheckRunner } from '@vigil/supervisor';
import {
  ArchivedTasks,
  ArtifactList,
  ReadableTasks,
  TaskContextStore,
  TaskRepository,
  type ContextPart,
  type TaskRecord,
} from '@vigil/tasks';
import { FakeToolGateway, newNoopTask, RedisTestContext } from '@vigil/testing';

/**
 * The Watcher's exit checks read only the parts of the record they declare (docs/kinds.md, "Exit
 * criteria"): the load asks Redis for the findings and those parts alone, a check given no
 * `reads` sees every part, and a check that reads a part it did not declare fails naming it.
 */
describe('exit checks read what they declare', () => {
  const ctx = new RedisTestContext('exit-check-reads');
  const tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
  const contexts = new TaskContextStore(ctx.redis, ctx.keys);
  afterAll(() => ctx.close());

  /** What each probe check saw of the record: the sizes of the parts it read. */
  const seen: Record<string, Record<string, number>> = {};
  const probe = (name: string, read: (context: CheckContext) => Record<string, number>) =>
    defineCheck(flagRules(), async (criterion, context) => {
      seen[name] = read(context);
      return { check: criterion.check, expected: true, actual: true, passed: true };
    });
  const everything = (context: CheckContext) => ({
    findings: context.findings.length,
    actions: context.actions.length,
    doneSteps: context.doneSteps.size,
    outputs: context.outputs.size,
    artifacts: context.artifacts?.length ?? -1,
  });
  const probeKind: TaskKind = {
    ...(noopKind as TaskKind),
    name: 'reads_probe',
    checks: {
      undeclared: probe('undeclared', everything),
      none: defineCheck({ ...flagRules(), reads: [] }, async (criterion, context) => {
        seen.none = { findings: context.findings.length };
        return { check: criterion.check, expected: true, actual: true, passed: true };
      }),
      actions_only: defineCheck({ ...flagRules(), reads: ['actions'] }, async (criterion, context) => {
        seen.actions_only = { actions: context.actions.length };
        return { check: criterion.check, expected: true, actual: true, passed: true };
      }),
      outputs_unsaid: defineCheck(
        { ...countRules(() => 1, 'outputs'), reads: ['doneSteps'] },
        async (criterion, context) => {
          seen.outputs_unsaid = { outputs: context.outputs.size };
          return { check: criterion.check, expected: 1, actual: 1, passed: true };
        },
      ),
    },
  };
  const kinds = new KindBinder(
    new KindRegistry([...BUILT_IN_KINDS, probeKind]),
    kindServices(ctx.config, new FakeToolGateway([])),
  );

  /** The runner over the real store, with the parts each load asked for. */
  function runner() {
    const asked: ContextPart[][] = [];
    const loadParts = contexts.loadParts.bind(contexts);
    const store = Object.create(contexts) as TaskContextStore;
    store.loadParts = (taskId, parts) => {
      asked.push([...parts].sort());
      return loadParts(taskId, parts);
    };
    return {
      runner: new ExitCheckRunner(
        kinds,
        store,
        undefined,
        new ArtifactList(ctx.redis, ctx.keys, new ReadableTasks(tasks, new ArchivedTasks())),
      ),
      asked,
    };
  }

  let seq = 0;
  async function taskWith(kind: string, checks: string[]): Promise<TaskRecord> {
    const id = `reads-${++seq}`;
    const { task } = await tasks.create(
      id,
      newNoopTask({
        kind,
        input: { steps: 2 },
        exitCriteria: checks.map((check) => ({
          check,
          expected: check === 'outputs_unsaid' ? 1 : check === 'all_steps_recorded' ? 2 : true,
        })),
      }),
    );
    await ctx.redis.rpush(ctx.keys.actions(id), JSON.stringify({ step: 1, tool: 'noop_step' }));
    await ctx.redis.sadd(ctx.keys.doneSteps(id), 'step:0', 'step:1');
    await ctx.redis.hset(ctx.keys.outputs(id), 'step:0', '{"done":true}', 'step:1', '{"done":true}');
    await ctx.redis.rpush(ctx.keys.findings(id), JSON.stringify({ title: 'a finding', detail: 'seen' }));
    return task;
  }

  it("loads a noop task's findings and done steps alone, and verifies it", async () => {
    const { runner: checks, asked } = runner();
    const task = await taskWith('noop', ['all_steps_recorded']);
    const run = await checks.run(task, new AbortController().signal);
    expect(asked).toEqual([['doneSteps']]);
    expect(run).toMatchObject({
      passed: true,
      checks: [{ check: 'all_steps_recorded', actual: 2, passed: true }],
    });
    expect(run.findings).toEqual([expect.objectContaining({ title: 'a finding' })]);
  });

  it('loads nothing but the findings for checks that read none, and only the declared part for another', async () => {
    const { runner: checks, asked } = runner();
    expect(
      (await checks.run(await taskWith('reads_probe', ['none']), new AbortController().signal)).passed,
    ).toBe(true);
    expect(
      (
        await checks.run(
          await taskWith('reads_probe', ['none', 'actions_only']),
          new AbortController().signal,
        )
      ).passed,
    ).toBe(true);
    expect(asked).toEqual([[], ['actions']]);
    expect(seen.none).toEqual({ findings: 1 });
    expect(seen.actions_only).toEqual({ actions: 1 });
  });

  it('gives a check that declares no reads every part, the artifact list included', async () => {
    const { runner: checks, asked } = runner();
    const run = await checks.run(await taskWith('reads_probe', ['undeclared']), new AbortController().signal);
    expect(run.passed).toBe(true);
    expect(asked).toEqual([['actions', 'doneSteps', 'outputs']]);
    expect(seen.undeclared).toEqual({ findings: 1, actions: 1, doneSteps: 2, outputs: 2, artifacts: 0 });
  });

  it('fails a check that reads a part it did not declare, naming the part', async () => {
    const { runner: checks } = runner();
    const task = await taskWith('reads_probe', ['outputs_unsaid']);
    await expect(checks.run(task, new AbortController().signal)).rejects.toThrow(
      "the task's outputs were not loaded: whoever reads them must ask for them",
    );
  });
});
