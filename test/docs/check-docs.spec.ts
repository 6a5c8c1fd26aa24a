/**
 * The docs check of `npm run check` (scripts/check-docs.mjs), run as a process on fixture
 * repositories: it passes a library table that matches libs/, and fails naming the library, the
 * over-long document or the cited section that is not a heading.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const SCRIPT = join(__dirname, '..', '..', 'scripts', 'check-docs.mjs');

interface Fixture {
  libs: string[];
  tableRows: string[];
  readmeLines?: number;
  architectureBody?: string;
  pages?: Record<string, string>;
  sources?: Record<string, string>;
}

/** Citations as code comments write them, built here so this file cites nothing itself. */
const cite = (page: string, title: string): string => `docs/${page}.md, "${title}"`;
const invariant = (n: number): string => `docs/ARCHITECTURE.md, invariant ${n}`;
/** A title wrapped onto the next comment line. */
const wrapped = (page: string, first: string, prefix: string, second: string): string =>
  `docs/${page}.md, "${first}\n${prefix}${second}"`;

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'check-docs-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

function run(fixture: Fixture): { status: number | null; problems: string[] } {
  for (const lib of fixture.libs) mkdirSync(join(root, 'libs', lib, 'src'), { recursive: true });
  const table = [
    '| lib | owns |',
    '|---|---|',
    ...fixture.tableRows.map((row) => `| \`libs/${row}\` | it |`),
  ];
  write(
    'docs/ARCHITECTURE.md',
    ['# Map', '', '## Libraries', '', ...table, '', fixture.architectureBody ?? '## Invariants', ''].join(
      '\n',
    ),
  );
  write('README.md', 'line\n'.repeat(fixture.readmeLines ?? 10));
  for (const [page, text] of Object.entries(fixture.pages ?? {})) write(`docs/${page}.md`, text);
  for (const [path, text] of Object.entries(fixture.sources ?? {})) write(path, text);
  const args = ['--libs', 'libs', '--architecture', 'docs/ARCHITECTURE.md', '--readme', 'README.md'];
  const result = spawnSync(process.execPath, [SCRIPT, ...args, '--docs', 'docs', '--src', 'src'], {
    cwd: root,
    encoding: 'utf8',
  });
  return { status: result.status, problems: result.stderr.split('\n').filter(Boolean) };
}

describe('check-docs', () => {
  it('passes when the table has one row per library and every cited section is a heading', () => {
    const result = run({
      libs: ['tasks', 'agent'],
      tableRows: ['agent', 'tasks'],
      architectureBody: '## Invariants\n\n### 2. Fencing\n\n## Redis key layout\n',
      pages: { missions: '# Missions\n\n## Child missions\n\n## Tools from outside\n' },
      sources: {
        'src/a.ts': `/** Fenced (${invariant(2)}; ${cite('ARCHITECTURE', 'Fencing')}). */\n`,
        'src/b.lua': `--[[\n  Children (${wrapped('missions', 'Child', '  ', 'missions')}). ]]\n`,
        'src/d.ts': `/**\n * Tools (${wrapped('missions', 'Tools', ' * ', 'from outside')}).\n */\n`,
        'src/c.ts': `/**\n * See ${cite('missions', 'Child missions')} and\n * "Tools from outside".\n */\n`,
      },
    });
    expect(result).toEqual({ status: 0, problems: [] });
  });

  it('names each library missing from the table and each row that is not a library', () => {
    const result = run({
      libs: ['tasks', 'kinds', 'builtin-kinds'],
      tableRows: ['tasks', 'kinds', 'meta-sandbox'],
    });
    expect(result.status).toBe(1);
    expect(result.problems).toEqual([
      'check-docs: docs/ARCHITECTURE.md: the library table has no row for libs/builtin-kinds',
      'check-docs: docs/ARCHITECTURE.md: the library table names libs/meta-sandbox, which is not a directory of libs/',
    ]);
  });

  it('fails a README over 300 lines and an ARCHITECTURE over 450', () => {
    const result = run({
      libs: ['tasks'],
      tableRows: ['tasks'],
      readmeLines: 301,
      architectureBody: 'text\n'.repeat(450),
    });
    expect(result.status).toBe(1);
    expect(result.problems).toEqual([
      'check-docs: README.md is 301 lines, more than 300',
      expect.stringMatching(/^check-docs: docs\/ARCHITECTURE\.md is 4[5-6]\d lines, more than 450$/),
    ]);
  });

  it('accepts a README of exactly 300 lines', () => {
    expect(run({ libs: ['tasks'], tableRows: ['tasks'], readmeLines: 300 })).toEqual({
      status: 0,
      problems: [],
    });
  });

  it('names a cited section that is not a heading (a comment in a code block is none), a page that does not exist, and an unknown invariant', () => {
    const result = run({
      libs: ['tasks'],
      tableRows: ['tasks'],
      pages: { missions: '# Missions\n\n## Child missions\n\n```bash\n# Findings\n```\n' },
      sources: {
        'src/a.ts': `// ${cite('missions', 'Child missions')} and "Findings"\n`,
        'src/b.ts': `// ${cite('guide', 'Anything')}\n// ${invariant(7)}\n`,
      },
    });
    expect(result.status).toBe(1);
    expect(result.problems).toEqual([
      'check-docs: src/a.ts: cites docs/missions.md, "Findings", not a heading there',
      'check-docs: src/b.ts: cites docs/guide.md, which does not exist',
      'check-docs: src/b.ts: cites docs/ARCHITECTURE.md, "invariant 7", not a heading there',
    ]);
  });
});
