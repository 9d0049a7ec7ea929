import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { directFcall, sendFcall } from '../../../src/store/redis/fcallCommand.js';

const LIBRARY = `#!lua name=fcallcommandtest
redis.register_function('echo_all', function(keys, args)
  redis.call('SET', keys[1], args[1])
  return { keys, args }
end)`;

describe('FCALL as one flat command', () => {
  let redis: TestRedis;
  let conn: Redis;
  before(async () => {
    redis = await startRedis();
    conn = new Redis(redis.url);
    await conn.call('FUNCTION', 'LOAD', 'REPLACE', LIBRARY);
  });
  after(async () => {
    conn.disconnect();
    await redis.stop();
  });

  it("sends what ioredis's fcall sends and reads the same reply: keys, numbers as text, empty and non-ASCII values", async () => {
    const keys = ['fct:{q}:a', 'fct:{q}:b'];
    const args = ['x', 42, '', 'héllo ✓', -1.5, 'NaN'];
    const direct = await sendFcall(conn, 'echo_all', 2, keys, args);
    const viaIoredis = await conn.fcall('echo_all', 2, ...keys, ...args);
    assert.deepEqual(direct, viaIoredis);
    assert.deepEqual(direct, [keys, ['x', '42', '', 'héllo ✓', '-1.5', 'NaN']]);
    assert.equal(await conn.get('fct:{q}:a'), 'x');
  });

  it("rejects with the server's error, as ioredis's fcall does", async () => {
    await assert.rejects(sendFcall(conn, 'no_such_function', 0, [], []), /Function not found/);
  });

  it('is not used on a connection whose ioredis options would change the command (a key prefix)', () => {
    const prefixed = new Redis(redis.url, { keyPrefix: 'p:', lazyConnect: true });
    const friendly = new Redis(redis.url, { showFriendlyErrorStack: true, lazyConnect: true });
    const auto = new Redis(redis.url, { enableAutoPipelining: true, lazyConnect: true });
    try {
      assert.equal(directFcall(conn), true);
      assert.equal(directFcall(prefixed), false);
      assert.equal(directFcall(friendly), false);
      assert.equal(directFcall(auto), false);
    } finally {
      for (const c of [prefixed, friendly, auto]) c.disconnect();
    }
  });
});
