// The type tests: test/types/client.types.ts (every `@ts-expect-error` must be an error, every
// other line must compile) and every ```ts block of README.md and docs/*.md, exactly as written,
// each compiled as its own module under the repo's strict tsconfig, `machinist` resolving to
// src/index.ts. Helpers the documents leave undeclared (fetchImage, shrink, ...) are declared in
// PRELUDE below, never in the documents.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const here = join(root, 'test/types');

/** What the README's examples use without declaring (they stand for the reader's own code). */
const PRELUDE = `
declare function fetchImage(url: string, options: { signal: AbortSignal }): Promise<Uint8Array>;
declare function shrink(image: Uint8Array, width: number, options: { signal: AbortSignal }): Promise<string>;
declare function fetchIt(url: string, options: { signal: AbortSignal }): Promise<string>;
declare function index(doc: { url: string; raw: string | null }, idempotencyKey: string): Promise<void>;
declare const client: import('machinist').Client;
declare const jobId: string;
declare const store: import('machinist').RedisStore;
declare const jobs: import('machinist').AnyDefinition[];
declare const resize: import('machinist').AnyDefinition;
declare const input: unknown;
declare const app: import('fastify').FastifyInstance;
declare const secret: string;
declare const req: { headers: Record<string, string> };
declare const rawBody: string;
declare const reply: { code(status: number): unknown };
`;

interface Block {
  file: string;
  /** The document the block is in, from the repo's root. */
  doc: string;
  /** The document's line of the block's first line of code. */
  line: number;
  code: string;
}

/** The ```ts blocks of README.md and of every docs/*.md, in order. */
function docBlocks(): Block[] {
  const docs = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const blocks: Block[] = [];
  for (const doc of docs) blocks.push(...tsBlocks(doc, readFileSync(join(root, doc), 'utf8'), blocks.length));
  return blocks;
}

/** One document's ```ts blocks, in order, numbered from `first`. */
function tsBlocks(doc: string, text: string, first: number): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    blocks.push({
      file: join(here, `doc-block-${first + blocks.length + 1}.ts`),
      doc,
      line: start + 1,
      code: lines.slice(start, end).join('\n') + '\n',
    });
    i = end;
  }
  return blocks;
}

/** Compiles `roots` plus in-memory `virtual` files with the repo's compiler options. */
function compile(roots: string[], virtual: Map<string, string>): readonly ts.Diagnostic[] {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    paths: { machinist: [join(root, 'src/index.js')] },
  };
  const host = ts.createCompilerHost(options);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (f) => virtual.has(f) || fileExists(f);
  host.readFile = (f) => virtual.get(f) ?? readFile(f);
  host.getSourceFile = (f, lang, onError, create) => {
    const text = virtual.get(f);
    return text !== undefined
      ? ts.createSourceFile(f, text, lang, true)
      : getSourceFile(f, lang, onError, create);
  };
  const program = ts.createProgram([...roots, ...virtual.keys()], options, host);
  return ts.getPreEmitDiagnostics(program);
}

function describeDiagnostic(d: ts.Diagnostic, blocks: Block[]): string {
  const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file || d.start === undefined) return text;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  const block = blocks.find((b) => b.file === d.file!.fileName);
  const where = block
    ? `${block.doc}:${block.line + line}:${character + 1}`
    : `${d.file.fileName.slice(root.length + 1)}:${line + 1}:${character + 1}`;
  return `${where} ${text}`;
}

describe('types', () => {
  it("compile: the client's type tests and every ts block of the README and docs/, under strict", () => {
    const blocks = docBlocks();
    assert.ok(
      blocks.some((b) => b.doc === 'README.md') && blocks.some((b) => b.doc === 'docs/guide.md'),
      `the README's and the guide's ts blocks were found (${blocks.length})`,
    );
    const virtual = new Map(blocks.map((b) => [b.file, b.code]));
    virtual.set(join(here, 'readme-prelude.d.ts'), PRELUDE);
    const diagnostics = compile([join(here, 'client.types.ts')], virtual);
    assert.deepEqual(
      diagnostics.map((d) => describeDiagnostic(d, blocks)),
      [],
    );
  });
});
