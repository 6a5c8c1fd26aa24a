import { loadConfig } from '@vigil/config';
import { InvalidTaskInputError, type ExitCriterion, type ScriptedTurn } from '@vigil/tasks';
import { resolveExitCriteria } from '@vigil/kinds';
import { kindServices, ModelRequiredError, type KindServices } from '@vigil/kinds';
import { validateKindInput } from '@vigil/kinds';
import { missionKind } from './mission.kind';
import type { MissionInput } from './mission.input';
import { FakeToolGateway } from '@vigil/testing';

const gateway = new FakeToolGateway(
  [
    { catalogName: 'files.read_file', effect: 'read', handle: () => ({ text: '', raw: {} }) },
    { catalogName: 'files.write_file', effect: 'write', handle: () => ({ text: '', raw: {} }) },
    { catalogName: 'create_ticket', effect: 'write', handle: () => ({ text: '', raw: {} }) },
    { catalogName: 'crm.create_lead', effect: 'write', handle: () => ({ text: '', raw: {} }) },
  ],
  { acme: ['files', 'create_ticket'] },
);
const services = (env: Record<string, string> = {}): KindServices => ({
  ...kindServices(loadConfig({ ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '', ...env }), gateway),
});
const readBack: ExitCriterion = {
  check: 'tool_result',
  args: { tool: 'files.read_file', arguments: { path: '/srv/a' }, pointer: '/content/0/text' },
  expected: 'done',
};
const plan: ScriptedTurn[] = [{ tool: 'files.write_file', args: { path: '/srv/a', content: 'done' } }];

/** What POST /v1/tasks does for a mission before anything is stored: input, criteria, the tenant's checks. */
async function create(
  input: Record<string, unknown>,
  requested: ExitCriterion[] = [readBack],
  agent: Record<string, unknown> = { scripted: { plan } },
  env: Record<string, string> = {},
) {
  const valid = validateKindInput(missionKind, input) as MissionInput;
  const exitCriteria = resolveExitCriteria(missionKind, valid, requested);
  await missionKind.validateForTenant!(valid, 'acme', services(env), { agent, exitCriteria });
  return exitCriteria;
}
const problems = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidTaskInputError);
  return (error as InvalidTaskInputError).problems;
};
const goal = { goal: 'Write the file and read it back', tools: ['files'] };

describe('creating a mission', () => {
  it('takes a goal, its tools, context and evidence, and refuses unknown fields and bad bounds', async () => {
    expect(await create({ ...goal, context: { repo: 'x' } })).toEqual([readBack]);
    expect(await problems(create({ ...goal, surprise: 1 }))).toEqual(['input.surprise should not exist']);
    expect(await problems(create({ goal: '', tools: [] }))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^input\.goal/), expect.stringMatching(/^input\.tools/)]),
    );
    expect(await problems(create({ ...goal, tools: ['files', 'files'] }))).toEqual([
      expect.stringMatching(/^input\.tools.*unique/),
    ]);
    expect(await problems(create({ ...goal, context: 'x'.repeat(20_001) }))).toEqual([
      expect.stringMatching(/^input\.context must be a string or an object of at most 20000/),
    ]);
    expect(await problems(create({ ...goal, evidence: 'vibes' }))).toEqual([
      expect.stringMatching(/^input\.evidence/),
    ]);
  });

  it('refuses a tool the catalog lacks or the tenant may not use, naming it', async () => {
    expect(await problems(create({ ...goal, tools: ['files', 'search'] }))).toEqual([
      'input.tools: tool search is not in the catalog',
    ]);
    expect(await problems(create({ ...goal, tools: ['files', 'crm.create_lead'] }))).toEqual([
      'input.tools: tenant acme may not use crm.create_lead',
    ]);
  });

  it('needs evidence beyond its findings, unless it says its findings are the only evidence', async () => {
    const findings: ExitCriterion = { check: 'findings_count', expected: 2 };
    expect((await problems(create(goal, [findings])))[0]).toMatch(
      /^exitCriteria: a mission needs at least one exit criterion other than findings_count/,
    );
    expect(await create({ ...goal, evidence: 'findings_only' }, [])).toEqual([
      { check: 'findings_count', expected: 1 },
    ]);
    expect(await create({ ...goal, evidence: 'findings_only' }, [findings])).toEqual([findings]);
    // The kind's own findings criterion can be tightened, never loosened.
    expect(
      (
        await problems(
          create({ ...goal, evidence: 'findings_only' }, [{ check: 'findings_count', expected: 0 }]),
        )
      )[0],
    ).toMatch(/findings_count\): expected must be an integer ≥ 1/);
  });

  it('validates every check at creation: tool_result only on a read tool of the mission, bounded patterns and URLs, children_completed only as true', async () => {
    const write = { ...readBack, args: { ...readBack.args, tool: 'files.write_file' } };
    expect(await problems(create(goal, [write]))).toEqual([
      'exitCriteria[0] (tool_result): args.tool files.write_file is a write; a check may only call read tools',
    ]);
    const foreign = { ...readBack, args: { ...readBack.args, tool: 'crm.find_lead' } };
    expect((await problems(create(goal, [foreign])))[0]).toMatch(
      /args\.tool crm\.find_lead is not among the mission's tools/,
    );
    const pointer = { ...readBack, args: { ...readBack.args, pointer: 'content/0' } };
    expect((await problems(create(goal, [pointer])))[0]).toMatch(
      /args\.pointer must be "" or start with "\/"/,
    );
    expect(
      (
        await problems(
          create(goal, [readBack, { check: 'findings_count', args: { titleMatches: '(' }, expected: 1 }]),
        )
      )[0],
    ).toMatch(/args\.titleMatches is not a valid regular expression/);
    expect(await create(goal, [{ check: 'children_completed', expected: true }])).toEqual([
      { check: 'children_completed', expected: true },
    ]);
    expect(await problems(create(goal, [{ check: 'children_completed', expected: false }]))).toEqual([
      'exitCriteria[0] (children_completed): expected must be true',
    ]);
    const loopback = {
      check: 'http_json',
      args: { url: 'http://127.0.0.1:8080/status', pointer: '/ok' },
      expected: true,
    };
    expect(await problems(create(goal, [loopback]))).toEqual([
      'exitCriteria[0] (http_json): args.url 127.0.0.1 is a private or loopback address; set TOOLS_ALLOW_PRIVATE=true to allow it',
    ]);
    expect(await create(goal, [loopback], undefined, { TOOLS_ALLOW_PRIVATE: 'true' })).toEqual([loopback]);
  });

  it('is refused offline (422) without a model key or a scripted plan, and the plan names only its tools', async () => {
    const error = await create(goal, [readBack], {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRequiredError);
    expect((error as Error).message).toBe(
      'a mission needs a model key (ANTHROPIC_API_KEY or GEMINI_API_KEY) or agent.scripted.plan',
    );
    await expect(create(goal, [readBack], {}, { ANTHROPIC_API_KEY: 'sk-ant-x' })).resolves.toEqual([
      readBack,
    ]);
    // A key for the other model only: the first attempt (FIRST_MODEL opus) could not run.
    await expect(create(goal, [readBack], {}, { GEMINI_API_KEY: 'g-x' })).rejects.toThrow(
      /ANTHROPIC_API_KEY is not set/,
    );
    const bad: ScriptedTurn[] = [
      { tool: 'files.write_file', args: { path: '/srv/a' } },
      [{ tool: 'record_finding', args: { title: 't', body: 'b' } }, { tool: 'files.delete_file' }],
      { tool: 'create_ticket' },
    ];
    expect(await problems(create(goal, [readBack], { scripted: { plan: bad } }))).toEqual([
      "agent.scripted.plan[1][1]: files.delete_file is neither one of the mission's tools (files.read_file, files.write_file) nor a built-in (record_finding, message_user, request_human_input, finish_task, read_output, start_subtask)",
      "agent.scripted.plan[2]: create_ticket is neither one of the mission's tools (files.read_file, files.write_file) nor a built-in (record_finding, message_user, request_human_input, finish_task, read_output, start_subtask)",
    ]);
  });
});
