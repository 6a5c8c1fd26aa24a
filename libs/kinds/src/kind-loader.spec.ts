import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KindModuleError } from './kind-loader';
import { KindRegistry } from './kind-registry';
import { validateKindInput } from './validate-input';

const EXAMPLE = 'examples/kinds/word-count.kind.js';
const ROOT = resolve(__dirname, '../../..');

describe('code kinds (VIGIL_KINDS)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-kinds-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A module written to the temp dir, built from the example with one change. */
  function moduleWith(name: string, body: string): string {
    const path = join(dir, `${name}.js`);
    writeFileSync(
      path,
      `const base = require(${JSON.stringify(join(ROOT, EXAMPLE))});\n` +
        `exports.kinds = (kit) => base.kinds(kit).map((kind) => { ${body}; return kind; });\n`,
    );
    return path;
  }

  const problemOf = (paths: string[]): string => {
    try {
      new KindRegistry(paths, ROOT);
    } catch (error) {
      expect(error).toBeInstanceOf(KindModuleError);
      return (error as Error).message;
    }
    throw new Error('the registry accepted it');
  };

  it('loads the example module, resolved from the working directory, beside the built-in kinds', () => {
    const registry = new KindRegistry([EXAMPLE], ROOT);
    expect(registry.names()).toEqual(expect.arrayContaining(['noop', 'campaign_build', 'word_count']));
    const kind = registry.get('word_count');
    const input = validateKindInput(kind, { documents: [{ name: 'a.txt', text: 'one two three' }] });
    expect(kind.plan(input)).toEqual([{ key: 'count:a.txt', tool: 'count_words', args: { name: 'a.txt' } }]);
    expect(kind.defaultExitCriteria(input)).toEqual([{ check: 'all_documents_counted', expected: 1 }]);
  });

  it('validates input through its class like any kind', () => {
    const kind = new KindRegistry([EXAMPLE], ROOT).get('word_count');
    expect(() => validateKindInput(kind, { documents: [{ name: 'a b', text: 3 }] })).toThrow(
      /input\.documents\[0\]\.name.*input\.documents\[0\]\.text/s,
    );
    expect(() => validateKindInput(kind, { documents: [], extra: 1 })).toThrow(/extra/);
  });

  it('accepts `kinds` as an array, and as a default export', () => {
    const array = join(dir, 'array.js');
    writeFileSync(
      array,
      `const { kinds } = require(${JSON.stringify(join(ROOT, EXAMPLE))});\n` +
        `const { KIND_KIT } = require(${JSON.stringify(join(ROOT, 'libs/kinds/src/kind-kit'))});\n` +
        `exports.default = { kinds: kinds(KIND_KIT).map((k) => ({ ...k, name: 'word_count_two' })) };\n`,
    );
    expect(new KindRegistry([array], ROOT).names()).toContain('word_count_two');
  });

  it.each([
    ['a missing file', () => join(dir, 'nope.js'), /nope\.js: cannot be loaded .*Cannot find module/],
    [
      'a module without kinds',
      () => moduleFile('empty', 'exports.other = 1;'),
      /empty\.js: exports no kinds/,
    ],
    [
      'a name taken by a built-in kind',
      () => moduleWith('dup', "kind.name = 'noop'"),
      /dup\.js: task kind noop is registered twice/,
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
      'a default criterion naming no check',
      () => moduleWith('crit', "kind.defaultExitCriteria = () => [{ check: 'words_ok', expected: 1 }]"),
      /crit\.js: task kind word_count: its default criterion "words_ok" names no check of the kind \(its checks are all_documents_counted\)/,
    ],
    [
      'a plan calling a tool it lacks',
      () => moduleWith('plan', "kind.plan = () => [{ key: 'k', tool: 'teleport', args: {} }]"),
      /plan\.js: task kind word_count: its plan calls "teleport"/,
    ],
    [
      'an example input its class refuses',
      () => moduleWith('example', 'kind.exampleInput = { documents: 3 }'),
      /example\.js: task kind word_count: exampleInput does not pass inputClass: input\.documents/,
    ],
    [
      'no example input',
      () => moduleWith('noexample', 'delete kind.exampleInput'),
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
