// The project explains itself with what it contains: every file a comment or a document names
// must exist in this repository, and nothing cites the material it was built from (design
// notes, specs and house rules that live outside it and that a user of the package never has).
//
// Scanned: the text of *.md and shell scripts, and the comments of *.ts / *.js / *.mjs / *.lua files,
// of every file git lists (tracked, or new and not ignored). A reference is a token that ends in
// a source or document extension (`runtime/backoff.ts`, `commit-12.lua`, `bench/analysis.md`), or
// that starts with a directory of this repository (`test/support/`). It must name an existing
// file or directory: relative to the citing file, to the repository root, or as the tail of a
// path in the repository (`CommitPump.ts`, `lua/include/`); a `.js` name may stand for its `.ts`
// source. Not references: URLs, globs and templates (`*`, `<name>`, `{q}`, `${x}`), scoped npm
// names (`@x/y`), files inside installed packages (`xstate/dist/…`), absolute paths, and the
// build output (`dist/`, `node_modules/`, `chaos/.build/`).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SELF = 'test/repo/fileReferences.test.ts';

/** Mentions of material outside the repository, wherever they appear in a scanned file. */
const FORBIDDEN: [RegExp, string][] = [
  [/\bDESIGN\b/, 'the design document (not in this repository)'],
  [/(^|[^\w.])notes\//, 'the design notes (not in this repository)'],
  [/\.\.\/shared\b/, 'a directory outside this repository'],
  [/\bseeds?\/|\bseed \d+/i, 'the specification seeds (not in this repository)'],
  [/(^|[\s('"`])\/work\//, "a path on the developers' machine"],
];

const SOURCE_EXT = /\.(ts|js|mjs|cjs|lua|md|json|sh)$/;
/** Prose that looks like a file name. */
const NOT_FILES = new Set(['Node.js', 'node.js']);

function listFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
  });
  return [...new Set(out.toString().split('\0'))].filter((f) => f && existsSync(join(ROOT, f)));
}

/** A one-line string literal of JS/TS. */
const STRING = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\\n]|\\.)*`/g;

/** The lines of a file that are prose: every line of a document or script, comments of code. */
function proseLines(path: string, text: string): { line: number; text: string }[] {
  const lines = text.split('\n');
  if (path.endsWith('.lua')) {
    // Lua comments: `--[[ ... ]]` blocks, and `--` to the end of the line.
    const out: { line: number; text: string }[] = [];
    let inBlock = false;
    lines.forEach((t, i) => {
      if (inBlock) {
        const end = t.indexOf(']]');
        out.push({ line: i + 1, text: end < 0 ? t : t.slice(0, end) });
        inBlock = end < 0;
        return;
      }
      const at = t.indexOf('--');
      if (at < 0) return;
      const rest = t.slice(at + 2);
      if (rest.startsWith('[[')) {
        const end = rest.indexOf(']]');
        out.push({ line: i + 1, text: end < 0 ? rest.slice(2) : rest.slice(2, end) });
        inBlock = end < 0;
      } else out.push({ line: i + 1, text: rest });
    });
    return out;
  }
  if (!/\.(ts|js|mjs|cjs)$/.test(path)) return lines.map((t, i) => ({ line: i + 1, text: t }));
  const out: { line: number; text: string }[] = [];
  let inBlock = false;
  lines.forEach((t, i) => {
    let rest = t;
    let prose = '';
    for (;;) {
      if (inBlock) {
        const end = rest.indexOf('*/');
        if (end < 0) {
          prose += ' ' + rest;
          break;
        }
        prose += ' ' + rest.slice(0, end);
        rest = rest.slice(end + 2);
        inBlock = false;
        continue;
      }
      // Comment marks are looked for outside string literals ('lua/*.lua', 'redis://...').
      const code = rest.replace(STRING, (m) => ' '.repeat(m.length));
      const block = code.indexOf('/*');
      const lineAt = code.indexOf('//');
      if (lineAt >= 0 && (block < 0 || lineAt < block)) {
        prose += ' ' + rest.slice(lineAt + 2);
        break;
      }
      if (block < 0) break;
      rest = rest.slice(block + 2);
      inBlock = true;
    }
    if (prose.trim()) out.push({ line: i + 1, text: prose });
  });
  return out;
}

/** Every file and directory path in the repository, for resolving partial references. */
function allPaths(files: string[]): Set<string> {
  const paths = new Set<string>();
  for (const f of files) {
    const parts = f.split('/');
    for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join('/'));
  }
  return paths;
}

function exists(ref: string, fromFile: string, paths: Set<string>, pathList: string[]): boolean {
  const bare = ref.replace(/^\.\//, '').replace(/\/$/, '');
  const candidates = [bare];
  if (bare.endsWith('.js')) candidates.push(bare.slice(0, -3) + '.ts');
  for (const c of candidates) {
    if (existsSync(join(ROOT, posix.dirname(fromFile), c))) return true;
    if (c.startsWith('../')) continue;
    if (paths.has(c) || existsSync(join(ROOT, c))) return true;
    if (pathList.some((p) => p.endsWith('/' + c))) return true;
  }
  return false;
}

interface Finding {
  file: string;
  line: number;
  problem: string;
}

function scan(): Finding[] {
  const files = listFiles();
  const paths = allPaths(files);
  const pathList = [...paths];
  const topDirs = new Set(files.filter((f) => f.includes('/')).map((f) => f.split('/')[0]!));
  const findings: Finding[] = [];
  for (const file of files) {
    if (file === SELF) continue;
    const text = readFileSync(join(ROOT, file), 'utf8');
    const isScript = /\.sh$/.test(file) || text.startsWith('#!/');
    if (!/\.(md|ts|js|mjs|cjs|lua)$/.test(file) && !isScript) continue;
    for (const { line, text: prose } of proseLines(file, text)) {
      for (const [re, what] of FORBIDDEN) {
        if (re.test(prose)) findings.push({ file, line, problem: `cites ${what}: ${prose.trim()}` });
      }
      const withoutUrls = prose.replace(/\b[a-z][\w+.-]*:\/\/\S*/gi, ' ');
      for (const m of withoutUrls.matchAll(/[\w./\-<>*{}$@~[\]]+/g)) {
        let token = m[0].replace(/[.:,;\]]+$/, '');
        if (token.startsWith('[')) token = token.slice(1);
        if (!token || /[<>*{}$@~[\]]/.test(token) || token.startsWith('/') || token.includes('//')) continue;
        if (/^(\.\/)?(dist|node_modules)\//.test(token) || /\/\.build\//.test(token) || NOT_FILES.has(token))
          continue;
        if (/^\.\w+$/.test(token)) continue; // an extension alone: "a `.js` module"
        const slash = token.indexOf('/');
        const first = slash > 0 ? token.slice(0, slash).replace(/^\.\//, '') : '';
        const underRepoDir = topDirs.has(first);
        // A file inside an installed package (profiles print them: `xstate/dist/x.cjs.js`), or
        // one of the bench's (bench/ is its own package, maybe not installed: its lock names them).
        if (
          first &&
          !underRepoDir &&
          (existsSync(join(ROOT, 'node_modules', first)) || BENCH_PACKAGES.has(first))
        )
          continue;
        if (!SOURCE_EXT.test(token) && !underRepoDir) continue;
        if (!exists(token, file, paths, pathList)) {
          findings.push({ file, line, problem: `names '${token}', which is not in this repository` });
        }
      }
    }
  }
  return findings;
}

/** The packages bench/package-lock.json installs (top-level names: `bullmq`, `msgpackr`, ...). */
const BENCH_PACKAGES = new Set(
  Object.keys(
    (JSON.parse(readFileSync(join(ROOT, 'bench/package-lock.json'), 'utf8')) as { packages: object })
      .packages,
  )
    .map((p) => /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(p)?.[1])
    .filter((name): name is string => name !== undefined && !name.startsWith('@')),
);

describe('file references in comments and documents', () => {
  let gitWorks = true;
  try {
    execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    gitWorks = false;
  }

  it(
    'name only files that exist in this repository, and cite nothing outside it',
    { skip: gitWorks ? false : 'not a git checkout' },
    () => {
      const findings = scan();
      assert.deepEqual(
        findings.map((f) => `${f.file}:${f.line}: ${f.problem}`),
        [],
      );
    },
  );

  it('tells a reference that exists from one that does not (the check can fail)', () => {
    const files = ['src/store/redis/lua/reap-7.lua', 'src/supervisor/CommitPump.ts', 'test/support/redis.ts'];
    const paths = allPaths(files);
    const list = [...paths];
    const has = (ref: string) => exists(ref, 'docs/x.md', paths, list);
    assert.equal(has('reap-7.lua'), true);
    assert.equal(has('lua/reap-7.lua'), true);
    assert.equal(has('CommitPump.js'), true);
    assert.equal(has('test/support/'), true);
    assert.equal(has('reap-8.lua'), false);
    assert.equal(has('test/nowhere/'), false);
    assert.equal(has('DESIGN.md'), false);
  });

  it('reads comments of code, not its strings, and every line of a document', () => {
    const ts = "const glob = 'lua/*.lua', url = 'redis://h/x.md'; // see foo.ts\n/* a\n b.lua */ x('c.md');";
    assert.deepEqual(
      proseLines('x.ts', ts).map((l) => [l.line, l.text.trim()]),
      [
        [1, 'see foo.ts'],
        [2, 'a'],
        [3, 'b.lua'],
      ],
    );
    const lua = "local k = 'a.lua' -- one.lua\n--[[ two.md\nthree.md ]] return 1";
    assert.deepEqual(
      proseLines('x.lua', lua).map((l) => [l.line, l.text.trim()]),
      [
        [1, 'one.lua'],
        [2, 'two.md'],
        [3, 'three.md'],
      ],
    );
    assert.equal(proseLines('x.md', 'a\nb').length, 2);
  });
});
