// The Lua loader's includes (src/store/redis/luaIncludes.ts): each include file names the
// includes it needs; the loader inlines them transitively, once each, dependencies first, so the
// order a script lists them in does not matter; a missing include or a cycle is refused with a
// LuaIncludeError. The shipped scripts are checked the same way: each include alone defines
// every function it calls, and every script compiles on a real Redis.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import { LuaIncludeError } from '../../../src/errors.js';
import { assembleLua, resolveIncludes } from '../../../src/store/redis/luaIncludes.js';
import { loadScripts, withIncludes } from '../../../src/store/redis/scripts.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

const inc = (...names: string[]): string => names.map((n) => `--- @include "${n}"\n`).join('');
const reader =
  (files: Record<string, string>) =>
  (name: string): string | undefined =>
    files[name];

/** Functions `lua` calls that it never defines (comments and string literals left out). */
function undefinedCalls(lua: string): string[] {
  const code = lua
    .replace(/--\[\[[\s\S]*?\]\]/g, '')
    .replace(/--[^\n]*/g, '')
    .replace(/'[^'\n]*'|"[^"\n]*"/g, "''");
  const defined = new Set(
    [...code.matchAll(/local function (\w+)|local (\w+(?:, \w+)*)\s*=|^(\w+) = function/gm)].flatMap((m) =>
      (m[1] ?? m[2] ?? m[3]!).split(/,\s*/),
    ),
  );
  const lua51 = [
    'tonumber',
    'tostring',
    'type',
    'ipairs',
    'pairs',
    'unpack',
    'error',
    'pcall',
    'select',
    'next',
  ];
  const keywords = ['function', 'if', 'and', 'or', 'not', 'return', 'elseif', 'in', 'until', 'while'];
  const known = new Set([...lua51, ...keywords]);
  const called = new Set([...code.matchAll(/(?<![.:\w])([A-Za-z_]\w*)\s*\(/g)].map((m) => m[1]!));
  return [...called].filter((n) => !defined.has(n) && !known.has(n));
}

describe('Lua includes', () => {
  it('inlines includes transitively, each once, every one after the includes it names', () => {
    const read = reader({
      a: `${inc('b', 'c')}local A = B + C\n`,
      b: `${inc('c')}local B = C\n`,
      c: 'local C = 1\n',
    });
    assert.deepEqual(resolveIncludes('s-0.lua', inc('a', 'c'), read), ['c', 'b', 'a']);
    const lua = assembleLua('s-0.lua', `-- header\n${inc('a')}${inc('c')}return A\n`, read);
    assert.equal(lua, '-- header\nlocal C = 1\nlocal B = C\nlocal A = B + C\nreturn A\n');
  });

  it('assembles the same script whatever order its include lines are in', () => {
    const a = withIncludes(inc('nowMs', 'lcMove', 'lcBatch', 'lcClaimDue', 'addLog'));
    const b = withIncludes(inc('addLog', 'lcClaimDue', 'lcBatch', 'lcMove', 'nowMs'));
    assert.deepEqual(
      a
        .split('\n')
        .filter((l) => l.startsWith('local'))
        .sort(),
      b
        .split('\n')
        .filter((l) => l.startsWith('local'))
        .sort(),
    );
    for (const name of ['lcMove', 'lcClaimDue', 'addLog']) {
      const lua = withIncludes(inc(name));
      assert.deepEqual(undefinedCalls(lua), [], `${name} alone`);
    }
  });

  it('refuses an include that has no file, naming it and who needs it', () => {
    const read = reader({ a: `${inc('gone')}local A = 1\n` });
    assert.throws(
      () => assembleLua('x-1.lua', inc('a'), read),
      (err: unknown) =>
        err instanceof LuaIncludeError &&
        err.code === 'LUA_INCLUDE_MISSING' &&
        err.script === 'x-1.lua' &&
        err.include === 'gone' &&
        /include "gone" not found .*x-1\.lua -> a/.test(err.message),
    );
    assert.throws(() => withIncludes(inc('noSuchInclude')), {
      code: 'LUA_INCLUDE_MISSING',
      include: 'noSuchInclude',
    });
  });

  it('refuses includes that need each other round, naming the cycle', () => {
    const read = reader({ a: `${inc('b')}local A\n`, b: `${inc('c')}local B\n`, c: `${inc('a')}local C\n` });
    assert.throws(
      () => assembleLua('x-1.lua', inc('a'), read),
      (err: unknown) =>
        err instanceof LuaIncludeError &&
        err.code === 'LUA_INCLUDE_CYCLE' &&
        err.chain.join(' -> ') === 'a -> b -> c -> a' &&
        err.message.includes('a -> b -> c -> a'),
    );
    assert.throws(() => assembleLua('x-1.lua', inc('s'), reader({ s: `${inc('s')}local S\n` })), {
      code: 'LUA_INCLUDE_CYCLE',
    });
  });

  it('each shipped include names every include it calls into (alone, it defines all it calls)', () => {
    const dir = new URL('../../../src/store/redis/lua/include/', import.meta.url);
    const names = readdirSync(dir)
      .filter((f) => f.endsWith('.lua'))
      .map((f) => f.slice(0, -4));
    assert.ok(names.length > 10);
    for (const name of names)
      assert.deepEqual(undefinedCalls(withIncludes(inc(name))), [], `include ${name}`);
  });

  it('each shipped script defines every function it calls, and no include twice', () => {
    for (const s of loadScripts()) {
      assert.deepEqual(undefinedCalls(s.lua), [], `script ${s.name}`);
      assert.doesNotMatch(s.lua, /^--- @include/m, `script ${s.name} has an include line left`);
      const fns = [...s.lua.matchAll(/^local function (\w+)/gm)].map((m) => m[1]!);
      assert.equal(new Set(fns).size, fns.length, `script ${s.name} defines a function twice`);
    }
  });

  describe('on Redis', () => {
    let redis: TestRedis;
    let raw: Redis;
    before(async () => {
      redis = await startRedis();
      raw = new Redis(redis.url);
    });
    after(async () => {
      raw.disconnect();
      await redis.stop();
    });

    it('every shipped script compiles', async () => {
      for (const s of loadScripts()) {
        const sha = (await raw.script('LOAD', s.lua)) as string;
        assert.match(sha, /^[0-9a-f]{40}$/, s.name);
      }
    });
  });
});
