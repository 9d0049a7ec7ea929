// Redis only: the errors a Redis server and its connection raise.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { mayHaveBeenApplied, callErrorKind, replyCode } from '../../src/store/callErrors.js';
import { startRedis, type TestRedis } from '../support/redis.js';

// The errors are the real ones, from a real server and a real refused connection.
const skip = process.env.REDIS_URL ? 'needs a private redis-server' : false;

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('the call did not fail');
}

describe('classifying Redis errors', { skip }, () => {
  let redis: TestRedis;
  let conn: Redis;
  before(async () => {
    redis = await startRedis();
    conn = new Redis(redis.url);
  });
  after(async () => {
    conn.disconnect();
    await redis.stop();
  });

  it('takes OOM raised inside a script as temporary, and as not applied', async () => {
    await conn.set('filler', 'x'.repeat(1024 * 1024));
    const used = Number(/used_memory:(\d+)/.exec(await conn.info('memory'))?.[1]);
    await conn.config('SET', 'maxmemory', String(used - 512 * 1024));
    try {
      const err = await failure(conn.eval("redis.call('HSET', KEYS[1], 'a', 1) return 1", 1, 'h'));
      assert.match(err.message, /^OOM .*user_script/);
      assert.equal(callErrorKind(err), 'transient');
      assert.equal(mayHaveBeenApplied(err), false);
    } finally {
      await conn.config('SET', 'maxmemory', '0');
      await conn.del('filler');
    }
  });

  it('takes BUSY (another script running past the busy threshold) as temporary', async () => {
    await conn.config('SET', 'busy-reply-threshold', '20');
    const looper = new Redis(redis.url);
    const spin = looper.eval('while true do end', 0).catch((e: unknown) => e);
    try {
      await new Promise((r) => setTimeout(r, 100));
      const err = await failure(conn.get('k'));
      assert.match(err.message, /^BUSY/);
      assert.equal(callErrorKind(err), 'transient');
    } finally {
      await conn.script('KILL');
      await spin;
      looper.disconnect();
      await conn.config('SET', 'busy-reply-threshold', '5000');
    }
  });

  it("takes a script's own runtime errors as poison: sending it again fails again", async () => {
    const runtime = await failure(conn.eval('return nil + 1', 0));
    assert.match(runtime.message, /^ERR user_script/);
    assert.equal(callErrorKind(runtime), 'poison');
    await conn.set('str', 'v');
    const wrongType = await failure(conn.eval("return redis.call('HGET', KEYS[1], 'f')", 1, 'str'));
    assert.match(wrongType.message, /^WRONGTYPE .*user_script/);
    assert.equal(callErrorKind(wrongType), 'poison');
    const own = await failure(conn.eval("return redis.error_reply('LEASE_LOST j1')", 0));
    assert.equal(callErrorKind(own), 'poison');
  });

  // The store loads its Functions library again and resends (scriptCalls.ts); a call that still
  // meets its absence (a node the reload missed) or a server without FCALL under
  // scripts: 'functions' did not run: a poison verdict would drop a commit's writes.
  it('takes a missing Functions library or FCALL as temporary, and as not applied', async () => {
    const missing = await failure(conn.fcall('machinist_00000000_commit', 1, 'k'));
    assert.match(missing.message, /^ERR Function not found/);
    assert.equal(callErrorKind(missing), 'transient');
    assert.equal(mayHaveBeenApplied(missing), false);
    const redis6 = { name: 'ReplyError', message: "ERR unknown command 'fcall', with args beginning with: " };
    assert.equal(callErrorKind(redis6), 'transient');
  });

  it('takes a refused or missing connection as temporary', async () => {
    const nobody = new Redis({ port: 1, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const refused = new Promise<Error>((r) => nobody.once('error', r));
    const offline = await failure(nobody.get('k'));
    assert.match(offline.message, /^Stream isn't writeable/);
    assert.equal(callErrorKind(offline), 'transient');
    assert.equal(mayHaveBeenApplied(offline), false);
    const socket = await refused;
    assert.equal((socket as { code?: string }).code, 'ECONNREFUSED');
    assert.equal(callErrorKind(socket), 'transient');
    const patient = new Redis({ port: 1, maxRetriesPerRequest: 0 }).on('error', () => {});
    const lost = await failure(patient.get('k'));
    assert.equal(lost.name, 'MaxRetriesPerRequestError');
    assert.equal(callErrorKind(lost), 'transient');
    nobody.disconnect();
    patient.disconnect();
  });

  it("reads the code inside Redis 6's wrapped script errors", () => {
    const wrapped =
      "ERR Error running script (call to f_0a1b): @user_script:3: @user_script: 3: -OOM command not allowed when used memory > 'maxmemory'. ";
    assert.equal(replyCode(wrapped), 'OOM');
    assert.equal(callErrorKind({ name: 'ReplyError', message: wrapped }), 'transient');
    assert.equal(
      replyCode('ERR Error running script (call to f_0a1b): @user_script:3: attempt to call a nil value'),
      'ERR',
    );
  });

  // A Cluster failing over: ioredis follows MOVED, CLUSTERDOWN and lost connections up to
  // maxRedirections, then gives up with a plain Error of this text (ioredis's Cluster,
  // handleError); its slot-map refresh failing gives ClusterAllFailedError's message. Both mean
  // "not now": a commit treated as poison would be split and its writes dropped (chaos T16).
  it('takes a cluster that gave up following redirections (a failover) as temporary', () => {
    for (const last of [
      'ReplyError: MOVED 12182 127.0.0.1:30001',
      'ReplyError: CLUSTERDOWN The cluster is down',
    ])
      assert.equal(
        callErrorKind(new Error(`Too many Cluster redirections. Last error: ${last}`)),
        'transient',
      );
    const lost = new Error('Too many Cluster redirections. Last error: Error: Connection is closed.');
    assert.equal(callErrorKind(lost), 'transient');
    assert.equal(mayHaveBeenApplied(lost), true);
    assert.equal(
      mayHaveBeenApplied(new Error('Too many Cluster redirections. Last error: ReplyError: MOVED 1 a:1')),
      false,
    );
    // A pipeline answered in part when its connection went (a script answered, the WAIT behind
    // it not: durability 'replicated'): the script was applied.
    const aborted = Object.assign(new Error('Command aborted due to connection close'), {
      name: 'AbortError',
    });
    assert.equal(callErrorKind(aborted), 'transient');
    assert.equal(mayHaveBeenApplied(aborted), true);
    const refresh = Object.assign(new Error('Failed to refresh slots cache.'), {
      name: 'ClusterAllFailedError',
    });
    assert.equal(callErrorKind(refresh), 'transient');
  });

  it('takes an error thrown on this side (not by Redis, not by the connection) as poison', () => {
    assert.equal(
      callErrorKind(new TypeError("Cannot read properties of undefined (reading 'id')")),
      'poison',
    );
  });
});
