// Two first starters on a fresh store: one stamps the data format and writes its queue between
// the other's two reads (the stamp, then whether the store is populated). On a cluster those
// reads go to two nodes, and the race was met in test/cluster/connect.test.ts (three concurrent
// first enqueues): the late reader saw a populated store without a stamp and refused it as
// format 0 (STORE_FORMAT_OLDER). It must look at the stamp again and accept it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { ensureFormat } from '../../../src/store/redis/formatOps.js';
import { formatKey, queuesKey } from '../../../src/store/keys.js';
import { STORE_FORMAT } from '../../../src/store/storeFormat.js';
import { startRedis, uniquePrefix, type TestRedis } from '../../support/redis.js';

describe('the data-format check of two first starters', () => {
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

  it('accepts a store another starter stamped and wrote to between its two reads', async () => {
    const prefix = uniquePrefix('race');
    let raced = false;
    // This starter's connection: the other starter stamps and enqueues just before its EXISTS.
    const late = new Proxy(conn, {
      get(target, prop) {
        if (prop === 'exists' && !raced)
          return async (...keys: string[]) => {
            raced = true;
            await target.set(formatKey(prefix), STORE_FORMAT, 'NX');
            await target.sadd(queuesKey(prefix), 'default');
            return target.exists(...keys);
          };
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    await ensureFormat(late, prefix);
    assert.ok(raced, 'the other starter ran between the reads');
    assert.equal(await conn.get(formatKey(prefix)), String(STORE_FORMAT));
  });
});
