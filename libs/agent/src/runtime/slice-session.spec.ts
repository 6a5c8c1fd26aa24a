import { loadConfig } from '@vigil/config';
import type { SliceContext, TaskRecord, WriteJournal } from '@vigil/tasks';
import {
  builtInKindBinder,
  FakeToolGateway,
  InMemoryStepLedger,
  MemoryObjectStore,
  newNoopTask,
} from '@vigil/testing';
import type { ModelProvider } from '../models/model-provider';
import { ScriptedProvider } from '../models/scripted.provider';
import { scriptedPlanOf } from '../models/scripted-plan';
import { CallWatchdog } from './call-watchdog';
import { GlobalSpendLimitError } from './global-spend.gate';
import { BudgetExhaustedError, type ModelSpend } from './model-spend';
import { OutputClaimCheck } from './output-claim-check';
import { PaidModelCall } from './paid-model-call';
import { SliceSession } from './slice-session';
import { ToolExecutor } from './tool-executor';

/**
 * The agent loop alone (docs/ARCHITECTURE.md, "Throughput: what one step costs"): a noop task's
 * slices played by the scripted agent into an in-memory step ledger, no Redis. A noop step is a
 * read, so the tool executor never reaches its write journal.
 */
describe('SliceSession (agent loop, in-memory ledger)', () => {
  const config = loadConfig({ SLICE_MAX_STEPS: '3', MAX_CONSECUTIVE_ERRORS: '3' });
  const kinds = builtInKindBinder(config, new FakeToolGateway([]));
  const watchdog = new CallWatchdog(config);
  const services = { config, executor: new ToolExecutor({} as WriteJournal), watchdog };
  const free = {
    reserve: () => Promise.reject(new Error('a free call reserves nothing')),
    settleGlobal: async () => {},
  };
  afterAll(() => watchdog.onApplicationShutdown());

  const noopTask = (steps: number) =>
    ({
      id: 'tsk_unit',
      ...newNoopTask({ input: { steps }, totalUnits: steps }),
      attempt: 1,
    }) as unknown as TaskRecord;
  const emptyContext = (): SliceContext => ({ doneSteps: new Set(), outputs: new Map(), findings: [] });

  async function session(
    task: TaskRecord,
    context: SliceContext,
    slice: number,
    model?: { provider: ModelProvider; money: Pick<ModelSpend, 'reserve' | 'settleGlobal'> },
    outputs?: OutputClaimCheck,
  ) {
    const bound = kinds.bind(task);
    const tools = await bound.tools();
    const provider =
      model?.provider ??
      new ScriptedProvider('scripted', {
        plan: () => scriptedPlanOf(bound, task.agent, tools),
        doneSteps: context.doneSteps,
        findings: context.findings,
        options: {},
        claimTrigger: async () => true,
      });
    const ledger = new InMemoryStepLedger(context, { attempt: 1, slice });
    const signal = new AbortController().signal;
    const run = new SliceSession({
      slice: {
        task,
        kind: bound.kind,
        tools,
        kindServices: bound.services,
        attempt: 1,
        slice,
        context,
        signal,
      },
      ledger,
      model: new PaidModelCall(provider, model?.money ?? free, config),
      hooks: { onHungCall: () => undefined, draining: () => false },
      services: { ...services, outputs },
    });
    return { run, ledger };
  }

  it('records SLICE_MAX_STEPS steps, hands on to a next slice, then claims done with finish_task', async () => {
    const task = noopTask(5);
    const context = emptyContext();
    const first = await session(task, context, 1);
    expect(await first.run.run()).toEqual({ end: 'next_slice' });
    expect(
      first.ledger.actions.map((action) => [action.slice, action.tool, action.key, action.step]),
    ).toEqual([
      [1, 'noop_step', 'step:0', 1],
      [1, 'noop_step', 'step:1', 2],
      [1, 'noop_step', 'step:2', 3],
    ]);
    expect(first.ledger.actions.every((action) => action.result !== undefined && !action.error)).toBe(true);
    expect([...context.doneSteps]).toEqual(['step:0', 'step:1', 'step:2']);
    expect(first.run.heldContext()).toMatchObject({ attempt: 1, actions: 3, context });
    expect(first.run.inFlight).toBeNull();

    const second = await session(task, context, 2);
    const result = await second.run.run();
    expect(result.end).toBe('verifying');
    expect(result.claim).toEqual(expect.any(String));
    expect(second.ledger.actions.map((action) => [action.slice, action.tool, action.key])).toEqual([
      [2, 'noop_step', 'step:3'],
      [2, 'noop_step', 'step:4'],
      [2, 'finish_task', null],
    ]);
    expect(context.doneSteps.size).toBe(5);
  });

  it("records a tool's output through the claim check: a stored output's reference, never the output", async () => {
    const store = new MemoryObjectStore();
    const context = emptyContext();
    // A bound of one byte: every noop step's output is stored.
    const outputs = new OutputClaimCheck(store, { maxInlineOutputBytes: 1 });
    const { run, ledger } = await session(noopTask(5), context, 1, undefined, outputs);
    expect(await run.run()).toEqual({ end: 'next_slice' });
    expect(store.keys()).toHaveLength(3);
    for (const action of ledger.actions) {
      const { stored } = action.result as { stored: { id: string; preview: string } };
      expect(store.keys()).toContain(`artifacts/acme/tsk_unit/${stored.id}`);
      expect(context.outputs.get(action.key!)).toEqual(action.result);
      expect(JSON.parse((await store.get(`artifacts/acme/tsk_unit/${stored.id}`))!.toString())).toEqual(
        JSON.parse(stored.preview),
      );
    }
  });

  it('reads a claim-checked output of an earlier slice back whole with read_output (from the object store)', async () => {
    const store = new MemoryObjectStore();
    const context = emptyContext();
    const outputs = new OutputClaimCheck(store, { maxInlineOutputBytes: 1 });
    const first = await session(noopTask(5), context, 1, undefined, outputs);
    await first.run.run();
    const stored = context.outputs.get('step:0') as { stored: { id: string } };
    const whole = JSON.parse(
      (await store.get(`artifacts/acme/tsk_unit/${stored.stored.id}`))!.toString(),
    ) as unknown;
    let calls = 0;
    const reader: ModelProvider = {
      name: 'scripted',
      modelId: 'scripted-reader',
      generate: async () => ({
        text: '',
        toolCalls: [
          calls++ === 0
            ? { id: 'c1', name: 'read_output', args: { key: 'step:0' } }
            : { id: 'c2', name: 'finish_task', args: { summary: 'read it' } },
        ],
        usage: { inputTokens: 0, outputTokens: 0 },
      }),
    };
    const second = await session(noopTask(5), context, 2, { provider: reader, money: free }, outputs);
    expect((await second.run.run()).end).toBe('verifying');
    const [read] = second.ledger.actions;
    expect(read).toMatchObject({ tool: 'read_output', result: { key: 'step:0', output: whole } });
    expect(read.result).not.toHaveProperty('output.stored');
  });

  const priced: ModelProvider = {
    name: 'opus',
    modelId: 'claude-opus-4-1',
    generate: () => Promise.reject(new Error('a refused call is never made')),
  };

  it.each([
    ['budget', new BudgetExhaustedError(1, 0.01), /budget of \$1 is nearly spent/],
    ['global_spend_limit', new GlobalSpendLimitError(100, 100), /global spend limit of \$100 reached/],
  ])(
    'ends the slice paused (%s), recording nothing, when the reservation is refused',
    async (reason, refusal, detail) => {
      const money = { reserve: () => Promise.reject(refusal), settleGlobal: async () => {} };
      const { run, ledger } = await session(noopTask(5), emptyContext(), 1, { provider: priced, money });
      const result = await run.run();
      expect(result).toMatchObject({ end: 'paused', pauseReason: reason });
      expect(result.detail).toMatch(detail);
      expect(ledger.actions).toEqual([]);
      expect(run.heldContext()).toBeUndefined();
    },
  );
});
