// Redis only: the minute tally of one call (lua/include/lcTally.lua) counts each job by its own
// created and claimed times, though it buckets them once per distinct pair: a commit that ends
// jobs made by different enqueues and claimed by different claims, done and failed, writes
// exactly what the TypeScript twin (tallyFields) says of each record.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, sleep, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { tallyFields } from '../../src/store/queueSeries.js';
import type { CommitOp, NewJob } from '../../src/store/types.js';

const job = (id: string): NewJob => ({
  id,
  machine: 'm',
  version: 1,
  input: '1',
  band: 2,
  delayMs: 0,
  maxAttempts: 1,
});

describe('the minute tally of a call', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('adds each job to the wait and run buckets of its own created and claimed times', async () => {
    h = new Harness(redis);
    // Two enqueues and three claims, tens of ms apart: wait and run buckets of several widths.
    await h.store.enqueue('default', [job('a1'), job('a2'), job('a3')]);
    await sleep(30);
    await h.store.enqueue('default', [job('b1'), job('b2'), job('b3')]);
    const claimed = [...(await h.claimAs('w', { max: 2 }))];
    await sleep(60);
    claimed.push(...(await h.claimAs('w', { max: 3 })));
    await sleep(250);
    claimed.push(...(await h.claimAs('w', { max: 1 })));
    assert.equal(claimed.length, 6);
    const ops: CommitOp[] = claimed.map((c, i) =>
      i % 3 === 2
        ? { kind: 'fail', id: c.id, token: c.token, error: '{"message":"no"}', snapshot: '', log: [] }
        : { kind: 'done', id: c.id, token: c.token, output: '1', snapshot: '', log: ['{"type":"done"}'] },
    );
    const res = await h.store.commit('default', ops);
    assert.deepEqual(
      res.written,
      ops.map(() => true),
    );

    const expected: Record<string, number> = {};
    let minute = 0;
    for (const c of claimed) {
      const [st, ca, ct, fa] = await h.raw.hmget(h.key(`job:${c.id}`), 'st', 'ca', 'ct', 'fa');
      minute = Math.floor(Number(fa) / 60_000);
      for (const f of tallyFields(st!, Number(ca), Number(ct), Number(fa)))
        expected[f] = (expected[f] ?? 0) + 1;
    }
    const stored = await h.raw.hgetall(h.key(`series:${minute}`));
    assert.deepEqual(Object.fromEntries(Object.entries(stored).map(([f, n]) => [f, Number(n)])), expected);
    // More than one pair in each histogram, so the grouping was exercised.
    assert.ok(Object.keys(expected).filter((f) => f.startsWith('w')).length >= 2, JSON.stringify(expected));
    assert.ok(Object.keys(expected).filter((f) => f.startsWith('r')).length >= 2, JSON.stringify(expected));
  });
});
