// The constants the Lua shares with TypeScript are generated into each script from one module
// (src/store/redis/luaConstants.ts): evaluated in a real Redis, each Lua value is its
// TypeScript source's, and a script gets only the constants its code names.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { EDGES, FINAL, UPDATABLE } from '../../../src/store/lifecycleTable.js';
import { BAND, LOG_CAP, RESULT_TTL_MS } from '../../../src/store/storeConstants.js';
import { PRIORITY_BAND } from '../../../src/store/types.js';
import { JOB_FIELDS } from '../../../src/store/decodeJob.js';
import { COMMIT_OP_FIELDS, COMMIT_OP_TYPES } from '../../../src/store/redis/commitOpFields.js';
import { LUA_CONSTANTS, constantsFor } from '../../../src/store/redis/luaConstants.js';
import { loadScripts, withIncludes } from '../../../src/store/redis/scripts.js';
import { startRedis, type TestRedis } from '../../support/redis.js';

describe('Lua constants generated from TypeScript', () => {
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

  const evalLua = async (body: string): Promise<unknown> => raw.eval(withIncludes(body), 0);
  const setOf = async (name: string): Promise<string[]> =>
    (
      (await evalLua(
        `local t = {}\nfor k in pairs(${name}) do t[#t + 1] = k end\ntable.sort(t)\nreturn t`,
      )) as string[]
    ).sort();

  it('each number in Lua is its TypeScript source, exactly', async () => {
    assert.equal(await evalLua('return BAND'), BAND);
    assert.equal(BAND, 17592186044416);
    assert.equal(await evalLua('return LOG_CAP'), LOG_CAP);
    assert.equal(await evalLua('return RESULT_TTL_MS'), RESULT_TTL_MS);
    // A score of the lowest band and a large sequence stays exact in Lua's double.
    assert.equal(await evalLua('return tostring(3 * BAND + 12345)'), String(3 * BAND + 12345));
  });

  it('each table in Lua is its TypeScript source', async () => {
    assert.deepEqual(await evalLua('return JOB_FIELDS'), [...JOB_FIELDS]);
    assert.deepEqual(JSON.parse((await evalLua('return cjson.encode(EDGES)')) as string), EDGES);
    assert.deepEqual(await setOf('FINAL'), [...FINAL].sort());
    assert.deepEqual(await setOf('UPDATABLE'), [...UPDATABLE].sort());
    const bands = JSON.parse((await evalLua('return cjson.encode(BANDS)')) as string) as Record<
      string,
      number
    >;
    const json = async (name: string): Promise<unknown> =>
      JSON.parse((await evalLua(`return cjson.encode(${name})`)) as string);
    assert.deepEqual(await json('COMMIT_OP_FIELDS'), COMMIT_OP_FIELDS);
    assert.deepEqual(await json('COMMIT_OP_TYPES'), COMMIT_OP_TYPES);
    assert.deepEqual(bands, Object.fromEntries(Object.values(PRIORITY_BAND).map((b) => [String(b), b])));
  });

  it('a script gets only the constants its code names, not those its comments do', () => {
    assert.equal(constantsFor('-- BAND in a comment\nreturn 1'), '');
    assert.equal(constantsFor("return LC.BAND, 'FINAL'"), '');
    assert.equal(
      constantsFor('return FINAL[x]'),
      'local FINAL = { done = true, failed = true, cancelled = true }\n',
    );
    const heartbeat = loadScripts().find((s) => s.name === 'heartbeat')!;
    for (const name of Object.keys(LUA_CONSTANTS))
      assert.doesNotMatch(heartbeat.lua, new RegExp(`local ${name} =`));
    const commit = loadScripts().find((s) => s.name === 'commit')!;
    for (const name of ['BAND', 'FINAL', 'UPDATABLE', 'EDGES', 'LOG_CAP']) {
      assert.equal(commit.lua.split(`local ${name} =`).length, 2, `commit defines ${name} once`);
    }
  });

  it('refuses a script that defines a generated constant itself', () => {
    assert.throws(
      () => constantsFor('local LOG_CAP = 5\nreturn LOG_CAP'),
      /LOG_CAP is generated from TypeScript/,
    );
  });
});
