// RateLimitedError (docs/flow-control.md, THE HOLD in lua/commit-12.lua and memory/commitOps.ts)
// on both stores: the job goes back to waiting without using an attempt, due after retryAfterMs,
// and the whole queue starts nothing until then (its throttle's state pushed forward in the same
// write), with or without a throttle. Times are the store's own clock (redisNow), not wall time.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, RateLimitedError } from '../../src/index.js';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { claimUpTo } from '../support/claimOps.js';
import { eventually } from '../support/redis.js';

const job = defineJob({ name: 't', work: () => 1 });
const HOLD = 300;

const rateLimited = (c: ClaimedJob): CommitOp => ({
  kind: 'retry',
  id: c.id,
  token: c.token,
  error: '{"name":"RateLimitedError","message":"429"}',
  delayMs: HOLD,
  holdMs: HOLD,
  attempt: c.attempt,
  log: [`{"type":"rate-limited","retryAfterMs":${HOLD}}`],
});

/** Claims (one job per call) until one is claimed; that claim's store time and job. */
async function nextStart(h: AnyStoreWorld): Promise<{ at: number; job: ClaimedJob; due: number | null }> {
  for (;;) {
    const r = await h.store.commit('default', [], claimUpTo(1));
    if (r.claimed[0]) return { at: r.redisNow, job: r.claimed[0], due: r.nextDueAt };
    await new Promise((res) => setTimeout(res, 20));
  }
}

describeOnEachStore('RateLimitedError', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  for (const throttle of [false, true]) {
    it(`holds back every start of the queue for retryAfterMs (${throttle ? 'with' : 'without'} a throttle)`, async () => {
      h = world();
      const client = h.client({ jobs: [job] });
      if (throttle)
        await client.setQueueLimits('default', { rateLimit: { limit: 1000, perMs: 1000, burst: 5 } });
      const a = await client.enqueue('t', 'a');
      const b = await client.enqueue('t', 'b');
      const first = (await h.store.commit('default', [], claimUpTo(1))).claimed[0]!;
      assert.equal(first.id, a);
      // The hit and the claim in one call: the claim after it in the same call already obeys it.
      const hit = await h.store.commit('default', [rateLimited(first)], claimUpTo(5));
      assert.deepEqual(hit.written, [true]);
      assert.equal(hit.claimed.length, 0, 'b must not start while the queue is held');
      // The claim says when to look again: when the hold ends.
      assert.ok(hit.nextDueAt !== null && hit.nextDueAt >= hit.redisNow + HOLD - 1, `due ${hit.nextDueAt}`);
      const next = await nextStart(h);
      assert.equal(next.job.id, b, 'the queue resumes in line: b, then the rate-limited job');
      assert.ok(next.at >= hit.redisNow + HOLD, `b started ${next.at - hit.redisNow} ms after the hit`);
      const again = await nextStart(h);
      assert.equal(again.job.id, a);
      assert.equal(again.job.attempt, 1, 'no attempt was used');
    });
  }

  it('a shorter hold never shortens a longer one', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    for (const x of ['a', 'b', 'c']) await client.enqueue('t', x);
    const [a, b] = (await h.store.commit('default', [], claimUpTo(2))).claimed;
    const long = await h.store.commit('default', [rateLimited(a!)], claimUpTo(0));
    const short = { ...rateLimited(b!), holdMs: 10, delayMs: 10 } as CommitOp;
    await h.store.commit('default', [short], claimUpTo(0));
    const next = await nextStart(h);
    assert.ok(next.at >= long.redisNow + HOLD, `started ${next.at - long.redisNow} ms after the long hold`);
  });

  it('a job whose work throws RateLimitedError again and again uses no attempt, then runs', async () => {
    h = world();
    let calls = 0;
    const flaky = defineJob({
      name: 'flaky',
      retry: { maxAttempts: 2 },
      work: () => {
        calls += 1;
        if (calls <= 3) throw new RateLimitedError(20);
        return 'ok';
      },
    });
    const client = h.client({ jobs: [flaky] });
    const id = await client.enqueue('flaky', 1);
    await h.started({ jobs: [flaky], concurrency: 1 });
    await eventually(async () => (await client.get(id))?.status === 'done');
    const rec = (await client.get(id))!;
    assert.equal(calls, 4);
    assert.equal(rec.attempts, 1, 'three RateLimitedErrors used no attempt (maxAttempts 2)');
    const log = await client.events(id);
    assert.equal(log.filter((e) => e.type === 'rate-limited').length, 3);
  });
});
