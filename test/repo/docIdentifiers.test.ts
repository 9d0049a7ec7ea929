// The documents name only code that exists. A call written in a document's inline code
// (`Supervisor.start()`, `claimJobs(`, `toStoredError()`) must name a function, method or other
// binding declared somewhere in this repository's code (TypeScript, or Lua's `local function`),
// or one that the code imports from a package (`assign`, `createActor`), or one of the
// platform's (`setTimeout()`, `JSON.parse()`, `performance.now()`); and a reference of the form
// `src/<file>.ts#name` must name a file that declares `name`. Code blocks are left out: they are
// compiled by test/types/types.test.ts, and what they call is checked there.
//
// Strict where it can be without false alarms: the name is matched as declared (any
// declaration of it, in any file), not resolved through types, so a renamed or removed
// function is caught wherever a document still calls it by its old name.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function gitFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
  });
  return [...new Set(out.toString().split('\0'))].filter((f) => f && existsSync(join(ROOT, f)));
}

/** Every identifier of a TypeScript/JavaScript file's code, and strings that are one (not its comments). */
function tsIdentifiers(text: string, file: string): Set<string> {
  const names = new Set<string>();
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) names.add(node.text.replace(/^#/, ''));
    // A name the code uses as a string: an event (`process.on('uncaughtException')`), a key.
    else if (ts.isStringLiteralLike(node) && /^[A-Za-z_$][\w$]*$/.test(node.text)) names.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return names;
}

/** The names a TypeScript file declares at its top level or in its classes and interfaces. */
function tsDeclared(text: string, file: string): Set<string> {
  const names = new Set<string>();
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    const name = (node as { name?: ts.Node }).name;
    if (
      name &&
      ts.isIdentifier(name) &&
      (ts.isDeclarationStatement(node) ||
        ts.isClassElement(node) ||
        ts.isTypeElement(node) ||
        ts.isVariableDeclaration(node))
    )
      names.add(name.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return names;
}

/** Every identifier of a Lua file's code, its comments left out. */
function luaIdentifiers(text: string): Set<string> {
  const code = text.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--.*$/gm, '');
  return new Set(code.match(/[A-Za-z_]\w*/g) ?? []);
}

/** The platform's: globals of Node and the language that a document may call. */
const PLATFORM = new Set(
  Object.getOwnPropertyNames(globalThis).concat([
    'require',
    'import',
    'structuredClone',
    'describe',
    'it',
    'before',
    'after',
    'afterEach',
    'beforeEach',
  ]),
);

const FILE_EXT = /\.(ts|js|mjs|lua|md|json|sh|yml|yaml|html|css)$/;

/** Functions of a package that a document tells the user to call and this code does not. */
const PACKAGE_API: Record<string, string> = { collectDefaultMetrics: 'prom-client' };

interface Call {
  doc: string;
  line: number;
  text: string;
  /** The dotted name, as written (`Supervisor.start`). */
  name: string;
}

/** Inline code spans of a document that start with a call, outside fenced code blocks. */
function calls(doc: string, text: string): Call[] {
  const out: Call[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) return;
    for (const m of line.matchAll(/`((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*)(\(|`)/g)) {
      const name = m[1]!;
      const last = name.split('.').at(-1)!;
      // A call; or a function's name as written in code: camelCase with a capital inside
      // (`runClaimedJob`, not a word or a field like `queued`), or a member of a class
      // (`CommitPump.run`); not a file name (`CommitPump.ts`).
      const named =
        m[2] === '(' ||
        (!FILE_EXT.test(name) && (/^[a-z][a-z0-9]*[A-Z]/.test(last) || /^[A-Z][a-z]\w*\.[a-z]/.test(name)));
      if (named) out.push({ doc, line: i + 1, text: m[0], name });
    }
  });
  return out;
}

/** `src/...#name` references of a document. */
function anchors(doc: string, text: string): { doc: string; line: number; file: string; name: string }[] {
  const out: { doc: string; line: number; file: string; name: string }[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/\b((?:src|machines)\/[\w./-]+\.ts)#([A-Za-z_$][\w$]*)/g))
      out.push({ doc, line: i + 1, file: m[1]!, name: m[2]! });
  });
  return out;
}

describe('documents name code that exists', () => {
  const files = gitFiles();
  const declared = new Set<string>();
  const byFile = new Map<string, Set<string>>();
  for (const f of files) {
    // Not this file: it names a function that does not exist, to show the check fails.
    if (/\.(ts|mts|mjs|js)$/.test(f) && !f.startsWith('docs/') && f !== 'test/repo/docIdentifiers.test.ts') {
      const text = readFileSync(join(ROOT, f), 'utf8');
      byFile.set(f, tsDeclared(text, f));
      for (const n of tsIdentifiers(text, f)) declared.add(n);
    } else if (f.endsWith('.lua'))
      for (const n of luaIdentifiers(readFileSync(join(ROOT, f), 'utf8'))) declared.add(n);
  }
  const docs = files.filter((f) => f === 'README.md' || /^docs\/[^/]+\.md$/.test(f));

  it('every call or function name in a document’s inline code names one the code has', async () => {
    const missing: string[] = [];
    for (const [name, pkg] of Object.entries(PACKAGE_API))
      if (name in ((await import(pkg)) as object)) declared.add(name);
    for (const doc of docs)
      for (const c of calls(doc, readFileSync(join(ROOT, doc), 'utf8'))) {
        const parts = c.name.split('.');
        // `JSON.parse(`, `process.kill(`: a member of the platform's objects.
        if (parts.length > 1 && PLATFORM.has(parts[0]!) && !declared.has(parts[0]!)) continue;
        const last = parts.at(-1)!;
        if (declared.has(last) || (parts.length === 1 && PLATFORM.has(last))) continue;
        missing.push(`${c.doc}:${c.line} ${c.text} — no '${last}' in this repository's code`);
      }
    assert.deepEqual(missing, []);
  });

  it('every src/...#name reference names a file that declares that name', () => {
    const missing: string[] = [];
    for (const doc of docs)
      for (const a of anchors(doc, readFileSync(join(ROOT, doc), 'utf8')))
        if (!byFile.get(a.file)?.has(a.name))
          missing.push(
            `${a.doc}:${a.line} ${a.file}#${a.name} — ${byFile.has(a.file) ? 'not declared there' : 'no such file'}`,
          );
    assert.deepEqual(missing, []);
  });

  it('gives no benchmark ratio of its own: bench/RESULTS.md is the one source of figures', () => {
    const copies: string[] = [];
    for (const doc of docs)
      readFileSync(join(ROOT, doc), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // "1.84x" beside BullMQ; not a factor of something else ("2.5x the lease").
          if (/\b\d+\.\d+x\b/.test(line) && /BullMQ|c=\d+|jobs\/s/.test(line))
            copies.push(`${doc}:${i + 1} ${line.trim()}`);
        });
    assert.deepEqual(copies, []);
  });

  it('catches a call of a function that does not exist (the check can fail)', () => {
    const found = calls(
      'x.md',
      'Call `noSuchFunctionAnywhere()` and `Supervisor.start()`.\n```ts\nignored(\n```',
    );
    assert.deepEqual(
      found.map((c) => c.name),
      ['noSuchFunctionAnywhere', 'Supervisor.start'],
    );
    assert.ok(!declared.has('noSuchFunctionAnywhere') && declared.has('start'));
    assert.deepEqual(anchors('x.md', 'see src/errors.ts#toStoredError'), [
      { doc: 'x.md', line: 1, file: 'src/errors.ts', name: 'toStoredError' },
    ]);
  });
});
