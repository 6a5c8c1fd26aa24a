import { loadConfig } from '@vigil/config';
import { FakeToolGateway } from '@vigil/testing';
import { missionKind, type MissionInput } from '@vigil/builtin-kinds';
import { BoundKind, kindServices, type PlanStep, type TaskKind } from '@vigil/kinds';
import type { Finding, ScriptedMisbehaviour, ScriptedTurn } from '@vigil/tasks';
import type { GenerateRequest } from './model-provider';
import { scriptedPlanOf } from './scripted-plan';
import { ScriptedProvider } from './scripted.provider';

const gateway = new FakeToolGateway([
  { catalogName: 'files.write_file', effect: 'write', handle: () => ({ text: '', raw: {} }) },
  { catalogName: 'files.read_file', effect: 'read', handle: () => ({ text: '', raw: {} }) },
]);
const input: MissionInput = { goal: 'g', tools: ['files'] };
const plan: ScriptedTurn[] = [
  [
    { tool: 'files.write_file', args: { path: 'a' } },
    { tool: 'files.write_file', args: { path: 'b' } },
  ],
  { tool: 'message_user', args: { text: 'halfway' } },
  { tool: 'record_finding', args: { title: 'Two files', body: 'a and b' } },
  { tool: 'files.read_file', args: { path: 'a' } },
];

async function missionPlan(): Promise<PlanStep[]> {
  const bound = new BoundKind<unknown>(
    missionKind as TaskKind,
    { id: 't', tenantId: 'acme', input },
    kindServices(loadConfig({}), gateway),
  );
  return scriptedPlanOf(bound, { scripted: { plan } }, await bound.tools());
}

const request = (): GenerateRequest => ({
  system: '',
  messages: [],
  tools: [],
  signal: new AbortController().signal,
});

/** A scripted slice over a mission plan: the record's done steps and findings, and fired triggers. */
function slice(steps: PlanStep[], options: ScriptedMisbehaviour = {}, fired = new Set<string>()) {
  const doneSteps = new Set<string>();
  const findings: Finding[] = [];
  const provider = new ScriptedProvider('opus', {
    plan: () => steps,
    doneSteps,
    findings,
    options,
    claimTrigger: async (name) => !fired.has(name) && Boolean(fired.add(name)),
  });
  /** The next model turn's calls, each then recorded as done the way the runtime would. */
  const turn = async () => {
    const reply = await provider.generate(request());
    for (const call of reply.toolCalls) {
      const step = steps.find(
        (s) => s.tool === call.name && JSON.stringify(s.args) === JSON.stringify(call.args),
      );
      if (call.name === 'record_finding')
        findings.push({ title: String(call.args.title), body: String(call.args.body), attempt: 1, at: 0 });
      else if (step && !step.key.startsWith('plan:')) doneSteps.add(step.key);
    }
    return reply.toolCalls.map((call) => `${call.name} ${JSON.stringify(call.args)}`);
  };
  return { turn, doneSteps, findings };
}

describe('the scripted agent on a mission plan', () => {
  it('plays each turn as one reply, named as the model sees the tools, then claims completion', async () => {
    const steps = await missionPlan();
    expect(steps.map((step) => [step.tool, step.turn])).toEqual([
      ['files__write_file', 0],
      ['files__write_file', 0],
      ['message_user', 1],
      ['record_finding', 2],
      ['files__read_file', 3],
    ]);
    const { turn } = slice(steps);
    expect(await turn()).toEqual(['files__write_file {"path":"a"}', 'files__write_file {"path":"b"}']);
    expect(await turn()).toEqual(['message_user {"text":"halfway"}']);
    expect(await turn()).toEqual(['record_finding {"title":"Two files","body":"a and b"}']);
    expect(await turn()).toEqual(['files__read_file {"path":"a"}']);
    expect(await turn()).toEqual(['finish_task {"summary":"All planned steps completed."}']);
  });

  it('resumes from the record in a later slice: done writes, recorded findings and sent messages are not played again', async () => {
    const steps = await missionPlan();
    const fired = new Set<string>();
    const first = slice(steps, {}, fired);
    await first.turn();
    await first.turn();
    await first.turn();
    const second = new ScriptedProvider('opus', {
      plan: () => steps,
      doneSteps: first.doneSteps,
      findings: first.findings,
      options: {},
      claimTrigger: async (name) => !fired.has(name) && Boolean(fired.add(name)),
    });
    expect((await second.generate(request())).toolCalls.map((call) => call.name)).toEqual([
      'files__read_file',
    ]);
  });

  it('crashAtStep counts calls across turns: the process dies just before the n-th call, after the calls before it', async () => {
    const kill = jest.spyOn(process, 'kill').mockImplementation(() => true);
    try {
      const { turn } = slice(await missionPlan(), { crashAtStep: 2 });
      // The turn is cut before its second call, which comes in a model call of its own.
      expect(await turn()).toEqual(['files__write_file {"path":"a"}']);
      expect(kill).not.toHaveBeenCalled();
      await turn();
      expect(kill).toHaveBeenCalledWith(process.pid, 'SIGKILL');
    } finally {
      kill.mockRestore();
    }
  });
});

describe('the scripted agent across the slices of a long plan', () => {
  const steps: PlanStep[] = Array.from({ length: 8 }, (_, i) => ({
    key: `step:${i}`,
    tool: 'noop_step',
    args: { index: i },
  }));
  const providerFor = (doneSteps: Set<string>) =>
    new ScriptedProvider('opus', {
      plan: () => steps,
      doneSteps,
      options: {},
      claimTrigger: async () => true,
    });
  const next = async (provider: ScriptedProvider) =>
    (await provider.generate(request())).toolCalls.map((call) => `${call.name} ${JSON.stringify(call.args)}`);

  it('starts a later slice after the steps done before it, and tries a step that failed first', async () => {
    const done = new Set<string>();
    const first = providerFor(done);
    for (const index of [0, 1, 2]) {
      expect(await next(first)).toEqual([`noop_step {"index":${index}}`]);
      if (index !== 1) done.add(`step:${index}`);
    }
    // The next slice: step 1 failed (the record does not show it done), so it comes before step 3.
    const second = providerFor(done);
    expect(await next(second)).toEqual(['noop_step {"index":1}']);
    done.add('step:1');
    expect(await next(second)).toEqual(['noop_step {"index":3}']);
    for (const index of [3, 4, 5, 6, 7]) done.add(`step:${index}`);
    expect(await next(providerFor(done))).toEqual(['finish_task {"summary":"All planned steps completed."}']);
  });

  it('starts from the beginning when the same plan comes with a record showing fewer steps done', async () => {
    const done = new Set(['step:0', 'step:1', 'step:2', 'step:3']);
    expect(await next(providerFor(done))).toEqual(['noop_step {"index":4}']);
    // Only the step before the earlier mark is in this record: the rest must be played again.
    expect(await next(providerFor(new Set(['step:3'])))).toEqual(['noop_step {"index":0}']);
  });
});

describe('the scripted agent streams its text (docs/api.md, "Live model output")', () => {
  const steps: PlanStep[] = [{ key: 'step:0', tool: 'noop_step', args: { index: 0 } }];

  it('says what it does in a short sentence, handed on in a few pieces that join to the reply text', async () => {
    const provider = new ScriptedProvider('opus', {
      plan: () => steps,
      doneSteps: new Set(),
      options: {},
      claimTrigger: async () => true,
    });
    const pieces: string[] = [];
    const reply = await provider.generate({ ...request(), onText: (text) => pieces.push(text) });
    expect(reply.text).toBe('Next: noop_step (step:0).');
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces.join('')).toBe(reply.text);
  });
});

describe('the scripted agent and what a walkthrough needs', () => {
  const steps: PlanStep[] = [
    { key: 'shot', tool: 'browser__browser_take_screenshot', args: { filename: 'home.png' } },
    {
      key: 'plan:1',
      tool: 'record_finding',
      args: { title: 'Home', body: 'b', artifacts: ['$artifacts:1', 'kept'] },
    },
  ];
  const id = 'a'.repeat(64);
  const opening = (content: string, tools = ['browser__browser_navigate']): GenerateRequest => ({
    system: '',
    messages: [{ role: 'user', content }],
    tools: tools.map((name) => ({ name, description: '', parameters: {} })),
    signal: new AbortController().signal,
  });
  const provider = (followsRestartNotice: boolean, outputs = new Map<string, unknown>()) =>
    new ScriptedProvider('opus', {
      plan: () => steps,
      doneSteps: new Set(outputs.keys()),
      outputs,
      options: {},
      followsRestartNotice,
      claimTrigger: async () => true,
    });
  const notice = 'x\nReopen with: browser__browser_navigate {"url":"http://h/p"}\ny';

  it('told of a restarted server, first reopens where it was, then goes on with its plan', async () => {
    const agent = provider(true);
    const first = await agent.generate(opening(notice));
    expect(first.toolCalls.map((call) => [call.name, call.args])).toEqual([
      ['browser__browser_navigate', { url: 'http://h/p' }],
    ]);
    const second = await agent.generate(opening(notice));
    expect(second.toolCalls[0].name).toBe('browser__browser_take_screenshot');
  });

  it('reads no opening unless told to, and calls no tool it was not offered', async () => {
    expect((await provider(false).generate(opening(notice))).toolCalls[0].name).toBe(
      'browser__browser_take_screenshot',
    );
    expect((await provider(true).generate(opening(notice, []))).toolCalls[0].name).toBe(
      'browser__browser_take_screenshot',
    );
  });

  it('fills "$artifacts:N" with the ids of the artifacts the N-th call saved', async () => {
    const saved = {
      content: [{ type: 'text', text: 't' }, { artifact: { id, mimeType: 'image/png', bytes: 3 } }],
    };
    const reply = await provider(false, new Map([['shot', saved]])).generate(opening(''));
    expect(reply.toolCalls[0].args).toEqual({ title: 'Home', body: 'b', artifacts: [id, 'kept'] });
  });
});
