// The format check of a store's first write (formatOps.ts ensureFormat: GET of the stamp, then
// EXISTS of the queue list and the registry) against a write that lands between its reads. A
// current-format writer stamps before it populates, so a store it populated is stamped; a check
// that read "no stamp" before, and "populated" after, must not take it for a pre-versioned store.
// Found by the bench's cluster workload (a first enqueueMany over three queues on three shards:
// the three enqueues' checks interleave, the shards answering at different times).
//
// TODO until formatOps.ts is fixed (its owner's): the case runs and fails, reported as a todo.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { RedisStore, defineJob, Client } from '../../src/index.js';
import { ensureFormat } from '../../src/store/redis/formatOps.js';
import type { RedisClient } from '../../src/store/redis/redisClient.js';
import { startRedis, type TestRedis } from '../support/redis.js';

const noop = defineJob({ name: 'noop', work: async () => undefined });

describe("a store's format check on a fresh store", () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it(
    'passes when another writer stamps and populates the store between its read of the stamp and its read of the queue list',
    { todo: 'STORE_FORMAT_OLDER: ensureFormat asserts format 0 from its first, stale read of the stamp' },
    async () => {
      const prefix = `race${Date.now()}`;
      const other = new RedisStore({ url: redis.url, prefix });
      const client = new Client({ store: other, jobs: [noop], queue: 'q' });
      const conn = new Redis(redis.url);
      try {
        // The check's GET of the stamp answers "none"; before it looks further, the other
        // writer makes its first write (stamp, then the job and the queue list).
        let first = true;
        const checking = {
          get: async (key: string) => {
            const value = await conn.get(key);
            if (first) {
              first = false;
              await client.enqueue('noop', {});
            }
            return value;
          },
          exists: (key: string) => conn.exists(key),
          set: (...args: Parameters<Redis['set']>) => conn.set(...args),
        } as unknown as RedisClient;
        await ensureFormat(checking, prefix);
        assert.equal(first, false, 'the other writer wrote between the reads');
        assert.equal(await conn.get(`${prefix}:format`), '1');
      } finally {
        client.close();
        conn.disconnect();
        await other.close();
      }
    },
  );
});
