// The running jobs' index `active` on Redis (include/lcBatch.lua, `active` AS A SKIP LIST): a
// large claim makes it a skip list through a pad member it removes in the same call, so the
// index holds exactly the running jobs, by lease deadline, whatever its encoding. The finished
// jobs' index `done` takes the same way when a call ends many (DONE AS A SKIP LIST).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Harness } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';

describe('the active index on Redis', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const jobs = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `j${from + i}`,
      machine: 'm',
      version: 1,
      input: '{}',
      band: 2,
      delayMs: 0,
      maxAttempts: 3,
    }));
  const claim = (max: number) =>
    h.store.commit('default', [], { workerId: 'w', leaseMs: 60_000, max, loadMachines: [] });

  it('holds exactly the running jobs after small and large claims and their ends', async () => {
    h = new Harness(redis);
    const active = h.key('active');
    await h.store.enqueue('default', jobs(0, 150));
    const small = await claim(10);
    assert.equal(await h.raw.object('ENCODING', active), 'listpack', 'a small index stays compact');
    const large = await claim(100);
    assert.equal(await h.raw.object('ENCODING', active), 'skiplist');
    const running = [...small.claimed, ...large.claimed];
    assert.deepEqual((await h.raw.zrange(active, '0', '-1')).sort(), running.map((c) => c.id).sort());
    const deadline = Number(await h.raw.zscore(active, large.claimed[0]!.id));
    assert.ok(deadline > (await h.store.now()), 'each at its lease deadline');
    // Finish half; the rest stay, and the pad never shows.
    const done = running.slice(0, 55);
    const res = await h.store.commit(
      'default',
      done.map((c) => ({
        kind: 'done' as const,
        id: c.id,
        token: c.token,
        output: '1',
        snapshot: '',
        log: ['{"type":"done"}'],
      })),
      { workerId: 'w', leaseMs: 60_000, max: 40, loadMachines: [] },
    );
    assert.ok(res.written.every(Boolean));
    const left = [...running.slice(55), ...res.claimed].map((c) => c.id).sort();
    assert.deepEqual((await h.raw.zrange(active, '0', '-1')).sort(), left);
    assert.equal(await h.raw.zcard(active), left.length);
  });

  it('holds exactly the finished jobs in `done`, a skip list once one call ends many', async () => {
    h = new Harness(redis);
    const doneKey = h.key('done');
    await h.store.enqueue('default', jobs(0, 60));
    const finish = async (n: number) => {
      const { claimed } = await claim(n);
      const res = await h.store.commit(
        'default',
        claimed.map((c) => ({
          kind: 'done' as const,
          id: c.id,
          token: c.token,
          output: '1',
          snapshot: '',
          log: ['{"type":"done"}'],
        })),
      );
      assert.ok(res.written.every(Boolean));
      return claimed.map((c) => c.id);
    };
    const few = await finish(5);
    assert.equal(await h.raw.object('ENCODING', doneKey), 'listpack', 'a call ending few leaves it compact');
    const many = await finish(50);
    assert.equal(await h.raw.object('ENCODING', doneKey), 'skiplist');
    assert.deepEqual((await h.raw.zrange(doneKey, '0', '-1')).sort(), [...few, ...many].sort());
    assert.equal(await h.raw.zcard(doneKey), 55, 'the pad never shows');
  });
});
