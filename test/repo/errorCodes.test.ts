// The error code registry (src/errorCodes.ts) is the only source of codes: every code the
// TypeScript in src/ gives (a `code: '...'` literal, a code passed to an error's constructor or to
// a `broken(...)` ending, a `CODE.X` constant, a comparison with one) and every code a Lua script
// replies (`redis.error_reply('CODE ...')`, a stored error's `"code":"..."`) is in it; the codes
// the scripts reply are the ones it marks `lua` (what fromScriptError maps); and the table in
// docs/errors.md is the registry, row for row. A Lua error reply from a real Redis maps through
// it to a typed error.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { ERROR_CODES, type ErrorCodeInfo } from '../../src/errorCodes.js';
import { JobNotFoundError, MachinistError, fromScriptError } from '../../src/errors.js';
import { startRedis, type TestRedis } from '../support/redis.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const REGISTRY = ERROR_CODES as Readonly<Record<string, ErrorCodeInfo>>;

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return filesUnder(p, ext);
    return p.endsWith(ext) ? [p] : [];
  });
}

const CODE = String.raw`([A-Z][A-Z0-9_]{2,})`;
/** The places a TypeScript file gives or tests an error code. */
const TS_CODE_USES = [
  new RegExp(String.raw`\bcode: '${CODE}'`, 'g'),
  new RegExp(String.raw`\bcode [!=]==? '${CODE}'`, 'g'),
  new RegExp(String.raw`(?:\bsuper|\bnew \w*Error|\bbroken)\(\s*'${CODE}'`, 'g'),
  new RegExp(String.raw`\bCODE\.${CODE}\b`, 'g'),
];
const LUA_REPLY = new RegExp(String.raw`error_reply\('${CODE}`, 'g');
const LUA_STORED = new RegExp(String.raw`"code":"${CODE}"`, 'g');

/** Codes of others the code compares with: Node's errno (`EEXIST`) and `ERR_...`, Redis's `ERR`. */
const FOREIGN = /^(E[A-Z]+|ERR(_[A-Z_]+)?)$/;

/** Every code `text` uses, by the patterns given (other than FOREIGN ones). */
function codesIn(text: string, patterns: readonly RegExp[]): Set<string> {
  const found = new Set<string>();
  for (const p of patterns) for (const m of text.matchAll(p)) if (!FOREIGN.test(m[1]!)) found.add(m[1]!);
  return found;
}

/** Codes used in the files that the registry lacks, as `file: CODE`. */
function unregistered(files: readonly string[], patterns: readonly RegExp[]): string[] {
  return files.flatMap((f) =>
    [...codesIn(readFileSync(f, 'utf8'), patterns)]
      .filter((c) => !Object.hasOwn(REGISTRY, c))
      .map((c) => `${f.slice(ROOT.length + 1)}: ${c}`),
  );
}

/** The docs table of the registry, one row of cells per code, in its order. */
function registryTable(): string[][] {
  return Object.entries(REGISTRY).map(([code, info]) => [
    `\`${code}\``,
    info.meaning,
    String(info.http ?? ''),
    info.retryable === undefined ? '' : info.retryable ? 'yes' : 'no',
  ]);
}

/** A markdown table row's cells, trimmed (prettier pads them). */
const cells = (row: string): string[] =>
  row
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

const tsFiles = filesUnder(join(ROOT, 'src'), '.ts').filter((f) => !f.endsWith('errorCodes.ts'));
const luaFiles = filesUnder(join(ROOT, 'src'), '.lua');

describe('error code registry', () => {
  it('the check finds a code that is not registered (it can fail)', () => {
    const sample = "throw new HttpError('NO_SUCH_CODE_EVER', 'x'); return { code: 'ALSO_NOT_ONE' };";
    const found = [...codesIn(sample, TS_CODE_USES)].filter((c) => !Object.hasOwn(REGISTRY, c));
    assert.deepEqual(found.sort(), ['ALSO_NOT_ONE', 'NO_SUCH_CODE_EVER']);
    assert.deepEqual(
      [...codesIn("return redis.error_reply('NOT_A_CODE ' .. id)", [LUA_REPLY])],
      ['NOT_A_CODE'],
    );
  });

  it('holds every code the TypeScript in src/ gives', () => {
    assert.ok(tsFiles.length > 100, 'src/ was read');
    assert.deepEqual(unregistered(tsFiles, TS_CODE_USES), []);
  });

  it('holds every code a Lua script replies or stores, and marks exactly the replied ones lua', () => {
    assert.ok(luaFiles.length > 10, 'the scripts were read');
    assert.deepEqual(unregistered(luaFiles, [LUA_REPLY, LUA_STORED]), []);
    const replied = new Set(luaFiles.flatMap((f) => [...codesIn(readFileSync(f, 'utf8'), [LUA_REPLY])]));
    const marked = Object.keys(REGISTRY).filter((c) => REGISTRY[c]!.lua);
    assert.deepEqual([...replied].sort(), marked.sort());
  });

  it('is the table in docs/errors.md, row for row', () => {
    const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    const rows = doc
      .split('\n')
      .filter((l) => /^\| `[A-Z]/.test(l))
      .map(cells);
    const want = registryTable();
    assert.deepEqual(
      rows,
      want,
      `docs/errors.md's table should read:\n${want.map((r) => `| ${r.join(' | ')} |`).join('\n')}`,
    );
  });
});

describe('Lua error replies map through the registry (real Redis)', () => {
  let redis: TestRedis;
  let r: Redis;
  before(async () => {
    redis = await startRedis();
    r = new Redis({ port: redis.port, lazyConnect: false });
  });
  after(async () => {
    r.disconnect();
    await redis.stop();
  });
  const reply = async (text: string): Promise<unknown> =>
    r.eval(`return redis.error_reply('${text}')`, 0).then(
      () => assert.fail('no error reply'),
      (err: unknown) => err,
    );

  it('a registered code with a class becomes that class, with the ids of the call', async () => {
    const err = fromScriptError(await reply('JOB_NOT_FOUND j1'), { jobId: 'j1', queue: 'q' });
    assert.ok(err instanceof JobNotFoundError);
    assert.equal(err.code, 'JOB_NOT_FOUND');
    assert.equal(err.queue, 'q');
  });

  it("any other registered script code becomes a MachinistError of that code, as MemoryStore's", async () => {
    const err = fromScriptError(await reply('BAD_SEND event, type and event id are required'), {
      jobId: 'j1',
    });
    assert.ok(err instanceof MachinistError);
    assert.equal(err.code, 'BAD_SEND');
    assert.equal(err.jobId, 'j1');
    assert.equal(err.message, 'BAD_SEND event, type and event id are required');
  });

  it('a reply whose code is not registered is passed on as Redis gave it', async () => {
    const raw = await reply('WRONGTHING x');
    assert.equal(fromScriptError(raw), raw);
  });
});
