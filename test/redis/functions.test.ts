// Redis only: the Lua scripts as one Redis Functions library (src/store/redis/luaLibrary.ts) and
// how a store calls it (scriptCalls.ts): the library loads within Lua 5.1's limits, a store runs
// its scripts with FCALL by default, loads the library again after FUNCTION FLUSH, keeps
// EVALSHA in 'eval' mode and where FUNCTION LOAD is refused ('auto'), and no call sees the
// state of the call before it.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { RedisStore, defineJob, type RedisStoreOptions } from '../../src/index.js';
import { ReplicaWait } from '../../src/store/redis/durability.js';
import { buildLibrary, type ScriptFile } from '../../src/store/redis/luaLibrary.js';
import {
  loadLibrary,
  loadScripts,
  readInclude,
  scriptCalls,
  scriptFiles,
} from '../../src/store/redis/scripts.js';
import { Harness } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';

const skip = process.env.REDIS_URL
  ? 'needs a private redis-server (FUNCTION FLUSH, ACL, CONFIG RESETSTAT)'
  : false;

/** Calls per script command since the last CONFIG RESETSTAT: fcall, evalsha, eval. */
async function calls(raw: Redis): Promise<Record<'fcall' | 'evalsha' | 'eval', number>> {
  const info = await raw.info('commandstats');
  const count = (cmd: string): number =>
    Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  return { fcall: count('fcall'), evalsha: count('evalsha'), eval: count('eval') };
}

async function libraries(raw: Redis): Promise<string[]> {
  const list = (await raw.call('FUNCTION', 'LIST')) as unknown[][];
  return list.map((lib) => String(lib[1]));
}

const echo = defineJob({ name: 'echo', work: ({ input }: { input: string }) => input });

/** Runs one job through `h`'s store (a supervisor and a client of its own) and returns its output. */
async function runOne(h: Harness, input: string): Promise<unknown> {
  await h.started({ jobs: [echo] });
  const client = h.client({ jobs: [echo] });
  const id = await client.enqueue('echo', input);
  const job = await client.waitForResult(id, { timeoutMs: 10_000 });
  assert.equal(job.status, 'done');
  return job.output;
}

describe('the Lua scripts as a Redis Functions library', () => {
  it('names the library and its functions by a hash of its text', () => {
    const lib = loadLibrary();
    assert.match(lib.name, /^machinist_[0-9a-f]{8}$/);
    assert.equal(lib.functionName('commit'), `${lib.name}_commit`);
    assert.ok(lib.code.startsWith(`#!lua name=${lib.name}\n`));
    for (const s of loadScripts())
      assert.ok(lib.code.includes(`function_name = '${lib.name}_${s.name}'`), s.name);
    const changed = scriptFiles().map((f) =>
      f.name === 'heartbeat' ? { ...f, text: `${f.text}\n-- another version\n` } : f,
    );
    const other = buildLibrary(changed, readInclude);
    assert.notEqual(other.name, lib.name, 'another text, another library');
  });

  it("refuses a scripts option other than 'auto', 'functions' or 'eval', naming it", () => {
    assert.throws(() => new RedisStore({ scripts: 'lua' as 'eval' }), {
      name: 'TypeError',
      message: /scripts must be 'auto', 'functions' or 'eval' \(got lua\)/,
    });
  });

  it('refuses an include whose top-level statement it cannot place (per call or per load)', () => {
    const files: ScriptFile[] = [{ name: 's', numberOfKeys: 0, text: '--- @include "odd"\nreturn 1\n' }];
    assert.throws(
      () => buildLibrary(files, (n) => (n === 'odd' ? 'local x = 1\nx = x + 1\n' : undefined)),
      /include odd: top-level statement not understood/,
    );
    assert.throws(
      () =>
        buildLibrary(
          [...files, { name: 't', numberOfKeys: 0, text: '--- @include "other"\nreturn 1\n' }],
          (n) =>
            n === 'odd'
              ? 'local function f() return 1 end\n'
              : n === 'other'
                ? 'local function f() return 2 end\n'
                : undefined,
        ),
      /'f' is defined by include odd too/,
    );
  });
});

describe('Redis Functions on a real Redis', { skip }, () => {
  let redis: TestRedis;
  let raw: Redis;
  const open: Harness[] = [];
  const harness = (options: Omit<RedisStoreOptions, 'url' | 'prefix' | 'cluster'> = {}): Harness => {
    const h = new Harness(redis, options);
    open.push(h);
    return h;
  };
  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
    await raw.call('FUNCTION', 'FLUSH');
    await raw.config('RESETSTAT');
  });
  after(async () => {
    raw.disconnect();
    await redis.stop();
  });

  it("loads the whole library (Lua 5.1's 200 locals and 60 upvalues per function hold)", async () => {
    const lib = loadLibrary();
    assert.equal(await raw.call('FUNCTION', 'LOAD', lib.code), lib.name);
    const [entry] = (await raw.call('FUNCTION', 'LIST', 'LIBRARYNAME', lib.name)) as unknown[][];
    const functions = (entry![5] as unknown[][]).map((f) => String(f[1])).sort();
    assert.deepEqual(
      functions,
      loadScripts()
        .map((s) => lib.functionName(s.name))
        .sort(),
    );
  });

  it('runs every script of a store with FCALL by default, the library loaded by the store', async () => {
    const h = harness();
    assert.equal(await runOne(h, 'a'), 'a');
    assert.deepEqual(await libraries(raw), [loadLibrary().name]);
    const n = await calls(raw);
    assert.ok(n.fcall > 0, 'FCALL used');
    assert.equal(n.evalsha + n.eval, 0, 'no EVAL or EVALSHA');
  });

  it('loads the library again after FUNCTION FLUSH and answers the call that met its absence', async () => {
    const h = harness();
    assert.equal(await runOne(h, 'before'), 'before');
    await raw.call('FUNCTION', 'FLUSH');
    const client = h.client({ jobs: [echo] });
    const id = await client.enqueue('echo', 'after');
    assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).output, 'after');
    assert.deepEqual(await libraries(raw), [loadLibrary().name]);
    assert.equal((await calls(raw)).evalsha, 0, 'still FCALL');
  });

  it('recovers a pipelined call (the WAIT of durability replicated) after FUNCTION FLUSH', async () => {
    const conn = new Redis(redis.url);
    try {
      const scripts = scriptCalls(conn);
      await scripts.load();
      await raw.call('FUNCTION', 'FLUSH');
      const wait = new ReplicaWait({ replicas: 1, timeoutMs: 10 });
      // No replica: the WAIT comes back short, and the script's own reply is what is looked at.
      const { reply, acked } = await wait.run(
        { redis: conn, scripts },
        'commit',
        'heartbeat',
        ['x:{q}:active'],
        ['x:{q}:', 1000],
      );
      assert.deepEqual(reply, []);
      assert.equal(acked, 0);
      assert.deepEqual(await libraries(raw), [loadLibrary().name]);
    } finally {
      conn.disconnect();
    }
  });

  it('runs the retention scripts at maxmemory (they free it), where a call that may write is refused', async () => {
    const lib = loadLibrary();
    await raw.call('FUNCTION', 'LOAD', lib.code);
    await raw.set('filler', 'x'.repeat(1024 * 1024));
    const used = Number(/used_memory:(\d+)/.exec(await raw.info('memory'))?.[1]);
    await raw.config('SET', 'maxmemory', String(used - 512 * 1024));
    try {
      const k = (name: string): string => `r:{q}:${name}`;
      const swept = await raw.fcall(
        lib.functionName('sweep'),
        5,
        ...['done', 'cancelled', 'dead', 'broken', 'failed'].map(k),
        'r:{q}:',
        1000,
        100,
        1000,
        10,
      );
      assert.equal(swept, 0);
      const purged = await raw.fcall(
        lib.functionName('purgeDead'),
        3,
        k('dead'),
        k('failed'),
        k('broken'),
        'r:{q}:',
        1000,
        10,
      );
      assert.equal(purged, 0);
      await assert.rejects(raw.fcall(lib.functionName('heartbeat'), 1, k('active'), 'r:{q}:', 1000), {
        message: /^OOM/,
      });
    } finally {
      await raw.config('SET', 'maxmemory', '0');
      await raw.del('filler');
    }
  });

  it('loads it once when two connections race to load it', async () => {
    const a = new Redis(redis.url);
    const b = new Redis(redis.url);
    try {
      const racers = [scriptCalls(a), scriptCalls(b), scriptCalls(a)];
      await Promise.all(racers.map((r) => r.load()));
      assert.deepEqual(await libraries(raw), [loadLibrary().name]);
      assert.deepEqual(
        racers.map((r) => r.evaluating),
        [false, false, false],
        "'already exists' is the library there, not a refusal",
      );
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });

  it("runs EVALSHA and loads no library with scripts: 'eval'", async () => {
    const h = harness({ scripts: 'eval' });
    assert.equal(await runOne(h, 'e'), 'e');
    assert.deepEqual(await libraries(raw), []);
    const n = await calls(raw);
    assert.equal(n.fcall, 0);
    assert.ok(n.evalsha + n.eval > 0);
  });

  it("goes over to EVALSHA under 'auto' when an ACL refuses FUNCTION LOAD; 'functions' fails", async () => {
    await raw.call('ACL', 'SETUSER', 'noload', 'on', '>pw', '~*', '&*', '+@all', '-function|load');
    const url = redis.url.replace('redis://', 'redis://noload:pw@');
    const auto = new Harness({ ...redis, url });
    open.push(auto);
    assert.equal(await runOne(auto, 'fallback'), 'fallback');
    assert.deepEqual(await libraries(raw), []);
    assert.ok((await calls(raw)).evalsha > 0);
    const strict = new Harness({ ...redis, url }, { scripts: 'functions', commandTimeoutMs: 500 });
    open.push(strict);
    // The strict store keeps trying its FUNCTION LOAD for commandTimeoutMs and then fails with
    // the last error it met: the refusal. On a loaded host those 500 ms can pass before its
    // connection is even up (the error then says 'not connected'): asked again, connected now,
    // it meets the refusal. Asked until then (a bounded wait, not a longer sleep); a call that
    // succeeds fails the test at once ('functions' ran a script without its library).
    const client = strict.client({ jobs: [echo] });
    const refused = /NOPERM|function/i;
    let err: unknown;
    for (const until = Date.now() + 30_000; ;) {
      err = await client.enqueue('echo', 'x').then(
        () => assert.fail("scripts: 'functions' ran without loading its library"),
        (e: unknown) => e,
      );
      if (refused.test((err as Error).message) || Date.now() > until) break;
    }
    assert.match((err as Error).message, refused);
  });

  it("gives every call its includes' state afresh (nothing of the call before, even one that failed)", async () => {
    const read = (n: string): string | undefined =>
      n === 'tally'
        ? "local seen = {}\nlocal LIMIT = 2\nlocal calls = 0\nlocal function see(x)\n  seen[#seen + 1] = x\n  if #seen > LIMIT then error('too many') end\n  return #seen\nend\nlocal function bump()\n  calls = calls + 1\n  return calls\nend\n"
        : undefined;
    const lib = buildLibrary(
      [
        {
          name: 'see',
          numberOfKeys: 0,
          text: '--- @include "tally"\nfor _, a in ipairs(ARGV) do see(a) end\nreturn { #seen, bump() }\n',
        },
      ],
      read,
    );
    await raw.call('FUNCTION', 'LOAD', lib.code);
    const see = (...args: string[]): Promise<unknown> => raw.fcall(lib.functionName('see'), 0, ...args);
    assert.deepEqual(await see('a', 'b'), [2, 1]);
    await assert.rejects(see('a', 'b', 'c'), /too many/);
    assert.deepEqual(
      await see('d'),
      [1, 1],
      'the failed call left nothing behind; a number reassigned starts again',
    );
    // A literal nothing reassigns is made once, at load; the others by each call.
    assert.match(lib.code, /^local LIMIT = 2$/m);
    assert.match(lib.code, /^local calls$/m);
  });
});
