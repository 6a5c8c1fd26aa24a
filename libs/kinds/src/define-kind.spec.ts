import { defineKind } from './define-kind';
import { defineTool } from './define-tool';
import { BoundKind, KindBinder } from './bound-kind';
import { flagRules } from './exit-criteria/check-rules';
import { KindRegistry } from './kind-registry';
import type { FromSchema } from './schema/from-schema';
import { defineCheck, ToolArgumentError, type KindServices, type TaskKind } from './task-kind';
import { validateKindInput } from './validate-input';

/** Compiles only when A and B are the same type. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const sameType = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;

const services = { config: {}, tools: {} } as unknown as KindServices;
const context = <Input>(input: Input) => ({
  taskId: 't',
  attempt: 1,
  input,
  outputs: new Map<string, unknown>(),
  signal: new AbortController().signal,
  services,
});

const PAGE = {
  type: 'object',
  properties: {
    url: { type: 'string' },
    depth: { type: 'integer', minimum: 0 },
    mode: { enum: ['fast', 'full'] },
    tags: { type: 'array', items: { type: 'string' } },
    note: { type: ['string', 'null'] },
  },
  required: ['url', 'depth'],
  additionalProperties: false,
} as const;

describe('FromSchema', () => {
  it('types what a schema describes: required, optional, enums, arrays, unions', () => {
    expect(
      sameType<
        FromSchema<typeof PAGE>,
        { url: string; depth: number; mode?: 'fast' | 'full'; tags?: string[]; note?: string | null }
      >(true),
    ).toBe(true);
    expect(sameType<FromSchema<{ type: 'object' }>, Record<string, unknown>>(true)).toBe(true);
    expect(sameType<FromSchema<{ minimum: 1 }>, unknown>(true)).toBe(true);
  });
});

describe('defineTool', () => {
  const calls: unknown[] = [];
  const fetchPage = defineTool({
    name: 'fetch_page',
    description: 'Fetches a page.',
    parameters: PAGE,
    effect: 'write',
    stepKey: (args) => `page:${args.url}:${args.depth}`,
    execute: async (args) => {
      calls.push(args);
      return args.url.length + args.depth;
    },
    reconcile: async (args) => (args.mode === 'fast' ? null : args.url),
  });

  it('hands stepKey, execute and reconcile arguments that passed its schema', async () => {
    expect(fetchPage.parameters).toBe(PAGE);
    expect(fetchPage.stepKey({ url: 'a', depth: 2 }, undefined)).toBe('page:a:2');
    await expect(fetchPage.execute({ url: 'ab', depth: 1 }, context(undefined))).resolves.toBe(3);
    await expect(
      fetchPage.reconcile!({ url: 'ab', depth: 1, mode: 'full' }, context(undefined)),
    ).resolves.toBe('ab');
  });

  it('refuses other arguments as a ToolArgumentError naming each field, before any of them runs', async () => {
    calls.length = 0;
    expect(() => fetchPage.stepKey({ url: 3, depth: -1 }, undefined)).toThrow(ToolArgumentError);
    expect(() => fetchPage.stepKey({ url: 3, depth: -1 }, undefined)).toThrow(
      /arguments\.url must be string.*arguments\.depth must be >= 0/,
    );
    await expect(fetchPage.execute({ url: 'a', depth: 0, extra: 1 }, context(undefined))).rejects.toThrow(
      'arguments must NOT have additional properties',
    );
    expect(calls).toEqual([]);
  });

  it('leaves reconcile out for a tool without one', () => {
    const read = defineTool({
      name: 'read',
      description: 'Reads.',
      parameters: { type: 'object' },
      effect: 'read',
      stepKey: () => 'read',
      execute: async () => null,
    });
    expect(read.reconcile).toBeUndefined();
  });

  it('refuses a schema Ajv cannot compile when the tool is defined', () => {
    expect(() =>
      defineTool({
        name: 'bad',
        description: 'Bad.',
        parameters: { type: 'teleport' },
        effect: 'read',
        stepKey: () => 'k',
        execute: async () => null,
      }),
    ).toThrow(/tool bad: parameters: not a JSON Schema/);
  });
});

describe('defineKind', () => {
  const echo = defineKind({
    name: 'echo',
    input: {
      type: 'object',
      properties: { words: { type: 'array', items: { type: 'string' }, minItems: 1 } },
      required: ['words'],
      additionalProperties: false,
    },
    instructions: (input) => `Say ${input.words.join(' ')}.`,
    tools: [],
    checks: {
      said: defineCheck(flagRules(), async (criterion) => ({ ...criterion, actual: true, passed: true })),
    },
  });

  it('fills in what it was not given: title, units, no criteria of its own, no capabilities', () => {
    const input = validateKindInput(echo, { words: ['hi'] });
    expect(sameType<typeof input, { words: string[] }>(true)).toBe(true);
    expect(echo.instructions(input)).toBe('Say hi.');
    expect(echo.defaultTitle(input)).toBe('echo task');
    expect(echo.totalUnits(input)).toBeNull();
    expect(echo.defaultExitCriteria(input)).toEqual([]);
    expect(echo.capabilities).toBeUndefined();
    expect(echo.inputSchema).toEqual(expect.objectContaining({ required: ['words'] }));
  });

  it('validates the input with its schema', () => {
    expect(() => validateKindInput(echo, { words: [] })).toThrow(
      'input.words must NOT have fewer than 1 items',
    );
    expect(() => validateKindInput(echo, [])).toThrow('input must be an object');
  });

  it('is registered like any kind, and a fixed criterion naming no check is refused at load', () => {
    const registry = new KindRegistry([echo as TaskKind]);
    expect(registry.get('echo')).toBe(echo);
    const wrong = defineKind({
      name: 'wrong',
      input: { type: 'object' },
      instructions: () => '',
      tools: [],
      checks: {},
      exitCriteria: [{ check: 'said', expected: true }],
    });
    expect(() => registry.register(wrong as TaskKind, { requireExample: true })).toThrow(
      'task kind wrong: its default criterion "said" names no check of the kind (its checks are none)',
    );
  });
});

describe('BoundKind', () => {
  const fixed = defineTool({
    name: 'fixed',
    description: 'Fixed.',
    parameters: { type: 'object' },
    effect: 'read',
    stepKey: () => 'fixed',
    execute: async () => null,
  });
  const own = { ...fixed, name: 'own' };
  const parent = defineKind({
    name: 'parent',
    input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    instructions: () => '',
    tools: [fixed],
    checks: { done: defineCheck(flagRules(), async (c) => ({ ...c, actual: true, passed: true })) },
    capabilities: { startsChildren: true },
    scriptedPlan: (input) => [{ key: `k${input.n}`, tool: 'fixed', args: {} }],
    toolsFor: async (task, given) => (given === services && task.tenantId === 'acme' ? [own] : []),
  }) as TaskKind;
  const binder = new KindBinder(new KindRegistry([parent]), services);
  const task = { id: 't', tenantId: 'acme', kind: 'parent', input: { n: 2 } };

  it("supplies the task's tools (the kind's and its own), services, checks, capabilities and plan", async () => {
    const bound = binder.bind(task);
    expect(bound.kind).toBe(parent);
    expect(bound.services).toBe(services);
    expect((await bound.tools()).map((tool) => tool.name)).toEqual(['fixed', 'own']);
    expect(bound.check('done')).toBe(parent.checks.done);
    expect(bound.check('toString')).toBeUndefined();
    expect(bound.startsChildren).toBe(true);
    expect(bound.scriptedPlan()).toEqual([{ key: 'k2', tool: 'fixed', args: {} }]);
  });

  it('says nothing it was not told: no children, no plan, the fixed tools alone', async () => {
    const plain = new BoundKind(
      { ...parent, capabilities: undefined, scriptedPlan: undefined, toolsFor: undefined },
      task,
      services,
    );
    expect(plain.startsChildren).toBe(false);
    expect(plain.scriptedPlan()).toBeUndefined();
    expect(await plain.tools()).toBe(parent.tools);
  });

  it("throws when the task's own tools cannot be had, and for a kind the process does not know", async () => {
    const failing = new BoundKind(
      { ...parent, toolsFor: () => Promise.reject(new Error('catalog down')) },
      task,
      services,
    );
    await expect(failing.tools()).rejects.toThrow('catalog down');
    expect(() => binder.bind({ ...task, kind: 'teleport' })).toThrow('unknown task kind "teleport"');
  });
});
