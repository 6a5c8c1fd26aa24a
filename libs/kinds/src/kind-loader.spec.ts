import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defineKind } from './define-kind';
import { KindModuleError } from './kind-loader';
import { KindRegistry } from './kind-registry';
import type { KindServices, TaskKind } from './task-kind';
import { validateKindInput } from './validate-input';

const EXAMPLE = 'examples/kinds/word-count.kind.js';
const ROOT = resolve(__dirname, '../../..');

interface WordCountInput {
  documents: { name: string; text: string }[];
}

/** A kind registered before the modules (as the built-in kinds are). */
const ANOTHER = defineKind({
  name: 'another',
  input: { type: 'object' },
  instructions: () => 'Call finish_task.',
  tools: [],
  checks: {},
}) as TaskKind;

describe('code kinds (VIGIL_KINDS)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-kinds-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A module written to the temp dir, built from the example with one change to each kind it defines. */
  function moduleWith(name: string, body: string): string {
    const path = join(dir, `${name}.js`);
    writeFileSync(
      path,
      `const base = require(${JSON.stringify(join(ROOT, EXAMPLE))});\n` +
        `exports.kinds = (kit) => base.kinds(kit).map((kind) => { ${body}; return kind; });\n`,
    );
    return path;
  }

  /** Like moduleWith, but the change is to the example's definition, before `defineKind` sees it. */
  function moduleDefining(name: string, body: string): string {
    const path = join(dir, `${name}.js`);
    writeFileSync(
      path,
      `const base = require(${JSON.stringify(join(ROOT, EXAMPLE))});\n` +
        `exports.kinds = (kit) => base.kinds({ ...kit, defineKind: (def) => { ${body}; return kit.defineKind(def); } });\n`,
    );
    return path;
  }

  const problemOf = (paths: string[]): string => {
    try {
      new KindRegistry([ANOTHER], paths, ROOT);
    } catch (error) {
      expect(error).toBeInstanceOf(KindModuleError);
      return (error as Error).message;
    }
    throw new Error('the registry accepted it');
  };

  it('loads the example module, resolved from the working directory, beside the kinds it is given', () => {
    const registry = new KindRegistry([ANOTHER], [EXAMPLE], ROOT);
    expect(registry.names()).toEqual(['another', 'word_count']);
    const kind = registry.get('word_count');
    const input = validateKindInput(kind, { documents: [{ name: 'a.txt', text: 'one two three' }] });
    expect(kind.defaultExitCriteria(input)).toEqual([{ check: 'all_documents_counted', expected: true }]);
    expect(kind.defaultTitle(input)).toBe('Count the words of 1 documents');
    expect(kind.totalUnits(input)).toBe(1);
  });

  it('runs the example: its tool checks its arguments, its check recomputes every count', async () => {
    const kind = new KindRegistry([], [EXAMPLE], ROOT).get('word_count') as TaskKind<WordCountInput>;
    const input = validateKindInput(kind, { documents: [{ name: 'a.txt', text: 'one two three' }] });
    const [tool] = kind.tools;
    expect(() => tool.stepKey({ name: 7 }, input)).toThrow('arguments.name must be string');
    expect(() => tool.stepKey({ name: 'b.txt' }, input)).toThrow('name must be one of a.txt');
    const signal = new AbortController().signal;
    const services = {} as KindServices;
    const context = { taskId: 't', attempt: 1, input, outputs: new Map(), signal, services };
    const output = await tool.execute({ name: 'a.txt' }, context);
    expect(output).toEqual({ name: 'a.txt', words: 3 });
    const criterion = { check: 'all_documents_counted', expected: true };
    const check = kind.checks.all_documents_counted;
    const evidence = {
      ...context,
      tenantId: 'acme',
      findings: [],
      actions: [],
      doneSteps: new Set<string>(),
    };
    expect(await check(criterion, { ...evidence, outputs: new Map() })).toMatchObject({
      passed: false,
      detail: 'not counted correctly: a.txt',
    });
    const counted = new Map([[tool.stepKey({ name: 'a.txt' }, input), output]]);
    expect(await check(criterion, { ...evidence, outputs: counted })).toMatchObject({ passed: true });
  });

  it('validates input through its JSON Schema, each problem naming its field', () => {
    const kind = new KindRegistry([], [EXAMPLE], ROOT).get('word_count');
    expect(() => validateKindInput(kind, { documents: [{ name: 'a b', text: 3 }] })).toThrow(
      /input\.documents\[0\]\.name must match pattern.*input\.documents\[0\]\.text must be string/s,
    );
    expect(() => validateKindInput(kind, { documents: [], extra: 1 })).toThrow(
      /input must NOT have additional properties; input\.documents must NOT have fewer than 1 items/,
    );
  });

  it('accepts `kinds` as an array, and as a default export', () => {
    const array = join(dir, 'array.js');
    writeFileSync(
      array,
      `const { kinds } = require(${JSON.stringify(join(ROOT, EXAMPLE))});\n` +
        `const { KIND_KIT } = require(${JSON.stringify(join(ROOT, 'libs/kinds/src/kind-kit'))});\n` +
        `exports.default = { kinds: kinds(KIND_KIT).map((k) => ({ ...k, name: 'word_count_two' })) };\n`,
    );
    expect(new KindRegistry([], [array], ROOT).names()).toContain('word_count_two');
  });

  it.each([
    ['a missing file', () => join(dir, 'nope.js'), /nope\.js: cannot be loaded .*Cannot find module/],
    [
      'a module without kinds',
      () => moduleFile('empty', 'exports.other = 1;'),
      /empty\.js: exports no kinds/,
    ],
    [
      'a name taken by another kind',
      () => moduleWith('dup', "kind.name = 'another'"),
      /dup\.js: task kind another is registered twice/,
    ],
    [
      'an inputClass that is not a class',
      () => moduleWith('cls', 'kind.inputClass = {}'),
      /cls\.js: task kind word_count: inputClass must be a class/,
    ],
    [
      'a check not declared with defineCheck',
      () => moduleWith('bare', 'kind.checks = { all_documents_counted: async () => ({}) }'),
      /bare\.js: task kind word_count: check all_documents_counted must be declared with defineCheck \(missing validateExpected/,
    ],
    [
      'a check whose reads name a part the record does not have',
      () => moduleWith('reads', "kind.checks.all_documents_counted.reads = ['outputs', 'journal']"),
      /reads\.js: task kind word_count: check all_documents_counted: reads must be a list of actions, doneSteps, outputs, artifacts/,
    ],
    [
      'an input schema Ajv cannot compile',
      () =>
        moduleDefining('schema', "def.input = { type: 'object', properties: { a: { type: 'teleport' } } }"),
      /schema\.js: its kinds function threw: task kind word_count: input: not a JSON Schema/,
    ],
    [
      'a default criterion naming no check',
      () => moduleDefining('crit', "def.exitCriteria = [{ check: 'words_ok', expected: true }]"),
      /crit\.js: task kind word_count: its default criterion "words_ok" names no check of the kind \(its checks are all_documents_counted\)/,
    ],
    [
      'a criterion, derived from its example input, naming no check',
      () =>
        moduleDefining(
          'derived',
          "def.exitCriteria = (input) => [{ check: 'words_' + input.documents.length, expected: true }]; " +
            "def.exampleInput = { documents: [{ name: 'a', text: 'b' }] }",
        ),
      /derived\.js: task kind word_count: its default criterion "words_1" names no check/,
    ],
    [
      'a scripted plan calling a tool it lacks',
      () =>
        moduleDefining(
          'plan',
          "def.scriptedPlan = () => [{ key: 'k', tool: 'teleport', args: {} }]; " +
            "def.exampleInput = { documents: [{ name: 'a', text: 'b' }] }",
        ),
      /plan\.js: task kind word_count: its plan calls "teleport"/,
    ],
    [
      'an example input its schema refuses',
      () => moduleDefining('example', 'def.exampleInput = { documents: 3 }'),
      /example\.js: task kind word_count: exampleInput is not a valid input: input\.documents must be array/,
    ],
    [
      'no example input where the criteria depend on the input',
      () => moduleDefining('noexample', 'def.exitCriteria = () => []'),
      /noexample\.js: .*exampleInput is required/,
    ],
  ])('stops at %s, naming the module and the problem', (_what, make, message) => {
    expect(problemOf([make()])).toMatch(message);
  });

  function moduleFile(name: string, text: string): string {
    const path = join(dir, `${name}.js`);
    writeFileSync(path, text);
    return path;
  }
});
