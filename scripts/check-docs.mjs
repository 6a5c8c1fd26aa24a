// The docs check of `npm run check`: the documents stay a map that matches the code.
// - docs/ARCHITECTURE.md's library table has one row per directory of libs/, no more, no less;
// - README.md stays within 300 lines and docs/ARCHITECTURE.md within 450;
// - every section a code comment cites (a docs page, a comma, then a quoted title; or
//   ARCHITECTURE.md's "invariant <n>") is a heading of that page.
// Every path is a parameter so the spec can run it on fixtures:
//   node scripts/check-docs.mjs [--libs libs] [--architecture docs/ARCHITECTURE.md]
//     [--readme README.md] [--docs docs] [--src apps,libs,scripts,test,bench,examples]
// Prints one line per problem and exits 1 when there is any.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LIMITS = { readme: 300, architecture: 450 };
const SOURCE_EXTENSIONS = /\.(ts|mjs|cjs|js|lua)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', 'coverage']);

function parseArgs(argv) {
  const options = {
    libs: 'libs',
    architecture: 'docs/ARCHITECTURE.md',
    readme: 'README.md',
    docs: 'docs',
    src: 'apps,libs,scripts,test,bench,examples',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, '');
    if (!(name in options) || argv[i + 1] === undefined)
      throw new Error(`check-docs: unknown option ${argv[i]}`);
    options[name] = argv[i + 1];
  }
  return options;
}

const lines = (text) => text.replace(/\n$/, '').split('\n').length;

/** The `libs/<name>` rows of the table whose first header cell is `lib`. */
function libraryRows(markdown) {
  const rows = [];
  let inTable = false;
  for (const line of markdown.split('\n')) {
    if (/^\|\s*lib\s*\|/.test(line)) inTable = true;
    else if (inTable && !line.startsWith('|')) break;
    else if (inTable) {
      const name = /^\|\s*`libs\/([^`/]+)`\s*\|/.exec(line);
      if (name) rows.push(name[1]);
    }
  }
  return rows;
}

function checkLibraryTable(libsDir, architecture) {
  const dirs = readdirSync(libsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const rows = libraryRows(architecture);
  if (rows.length === 0)
    return ['docs/ARCHITECTURE.md: no library table (a table whose first column is `lib`)'];
  const missing = dirs.filter((dir) => !rows.includes(dir)).sort();
  const extra = rows.filter((row) => !dirs.includes(row)).sort();
  return [
    ...missing.map((dir) => `docs/ARCHITECTURE.md: the library table has no row for libs/${dir}`),
    ...extra.map(
      (row) => `docs/ARCHITECTURE.md: the library table names libs/${row}, which is not a directory of libs/`,
    ),
  ];
}

function checkLength(label, path, limit) {
  const count = lines(readFileSync(path, 'utf8'));
  return count > limit ? [`${label} is ${count} lines, more than ${limit}`] : [];
}

/** Headings of a page (outside code fences), with a leading "<n>. " also read without it. */
function headingsOf(markdown) {
  const headings = new Set();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = !inFence && /^#{1,6}\s+(.+?)\s*$/.exec(line);
    if (!heading) continue;
    headings.add(heading[1]);
    const numbered = /^(\d+)\.\s+(.+)$/.exec(heading[1]);
    if (numbered) {
      headings.add(numbered[2]);
      headings.add(`invariant ${numbered[1]}`);
    }
  }
  return headings;
}

function* sourceFiles(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (SKIPPED_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (SOURCE_EXTENSIONS.test(entry.name) && !entry.name.endsWith('.generated.ts')) yield path;
  }
}

// A quoted title may wrap onto the next comment line (` * `, `// `, `-- ` in front).
const WRAP = String.raw`\s*(?:(?:\*|\/\/|--)\s*)?`;
const CITATION = new RegExp(String.raw`docs\/([A-Za-z-]+)\.md,${WRAP}(?:"([^"]+)"|(invariant \d+))`, 'g');
const MORE_TITLES = new RegExp(String.raw`^(?:${WRAP},${WRAP}|\s+and${WRAP})"([^"]+)"`);
const normalise = (title) => title.replace(/\s*\n\s*(?:\*|\/\/|--)?\s*/g, ' ').trim();

/** Every (page, title) a comment cites, with the file it is in. */
function citations(text) {
  const found = [];
  for (const match of text.matchAll(CITATION)) {
    const page = match[1];
    found.push({ page, title: normalise(match[2] ?? match[3]) });
    let rest = text.slice(match.index + match[0].length);
    for (let more = MORE_TITLES.exec(rest); more; more = MORE_TITLES.exec(rest)) {
      found.push({ page, title: normalise(more[1]) });
      rest = rest.slice(more[0].length);
    }
  }
  return found;
}

function checkCitations(sourceDirs, docsDir, root) {
  const pages = new Map();
  const headings = (page) => {
    if (!pages.has(page)) {
      const path = join(docsDir, `${page}.md`);
      pages.set(page, existsSync(path) ? headingsOf(readFileSync(path, 'utf8')) : null);
    }
    return pages.get(page);
  };
  const problems = [];
  for (const dir of sourceDirs)
    for (const file of sourceFiles(dir))
      for (const { page, title } of citations(readFileSync(file, 'utf8'))) {
        const where = file.startsWith(root) ? file.slice(root.length + 1) : file;
        const known = headings(page);
        if (!known) problems.push(`${where}: cites docs/${page}.md, which does not exist`);
        else if (!known.has(title))
          problems.push(`${where}: cites docs/${page}.md, "${title}", not a heading there`);
      }
  return problems;
}

export function checkDocs(options, root = ROOT) {
  const at = (path) => resolve(root, path);
  const architecture = readFileSync(at(options.architecture), 'utf8');
  return [
    ...checkLibraryTable(at(options.libs), architecture),
    ...checkLength('README.md', at(options.readme), LIMITS.readme),
    ...checkLength('docs/ARCHITECTURE.md', at(options.architecture), LIMITS.architecture),
    ...checkCitations(
      options.src.split(',').map((dir) => at(dir.trim())),
      at(options.docs),
      root,
    ),
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = checkDocs(parseArgs(process.argv.slice(2)), process.cwd());
  for (const problem of problems) console.error(`check-docs: ${problem}`);
  process.exit(problems.length > 0 ? 1 : 0);
}
