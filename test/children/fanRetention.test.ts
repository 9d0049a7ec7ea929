// Review finding: a parent's fan-out record (`fan:<id>:<group>`, holding every child's outcome)
// and its `children:<id>` index never expire, though the parent and child records do.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { Client, RedisStore, Supervisor, defineJob, definePipeline, fanOut } from '../../src/index.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

describe('retention of fan-out bookkeeping', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('lets the fan-out record and children index expire with the parent', async () => {
    const prefix = uniquePrefix('fanret');
    // The shortest retention the supervisor below takes: leaseMs 1000 + reaperIntervalMs 200.
    const store = new RedisStore({ url: redis.url, prefix, finishedTtlMs: 1200 });
    const echo = defineJob({ name: 'echo', work: async ({ input }: { input: number }) => input });
    const machine = setup({ actors: { fanOut } }).createMachine({
      initial: 'fan',
      states: {
        fan: {
          invoke: {
            id: 'kids',
            src: 'fanOut',
            input: () => ({ jobs: [1, 2].map((n) => ({ machine: 'echo', input: n })) }),
            onDone: 'end',
          },
        },
        end: { type: 'final' },
      },
    });
    const jobs = [echo, definePipeline({ name: 'parent', machine })];
    const sup = new Supervisor({ store, jobs, leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 });
    await sup.start();
    const client = new Client({ store, jobs });
    try {
      const id = await client.enqueue('parent', {});
      const done = await client.waitForResult(id, { timeoutMs: 10_000 });
      assert.equal(done.status, 'done');
      // The parent's record expires after finishedTtlMs ...
      await eventually(async () => (await store.redis.exists(`${prefix}:{default}:job:${id}`)) === 0);
      // ... and so should the bookkeeping that only served it.
      const left = await store.redis.keys(`${prefix}:{default}:*${id}*`);
      assert.deepEqual(left, [], `keys left behind: ${left.join(', ')}`);
    } finally {
      await sup.stop({ graceMs: 500 });
      client.close();
      await store.close();
    }
  });
});
