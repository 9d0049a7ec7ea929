// RateLimitedError from a job with a concurrency key (THE KEY HOLD, lua/include/lcKeyGate.lua)
// on both stores: only its key is held back for retryAfterMs; other keys, and jobs without a key,
// start at once; the claim says when the key may start again.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { claimUpTo } from '../support/claimOps.js';

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

describeOnEachStore('RateLimitedError with a key', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('holds back only its key; other keys and unkeyed jobs start at once', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    const a1 = await client.enqueue('t', 1, { concurrencyKey: 'a' });
    const a2 = await client.enqueue('t', 2, { concurrencyKey: 'a' });
    const b1 = await client.enqueue('t', 3, { concurrencyKey: 'b' });
    const free = await client.enqueue('t', 4);
    const first = (await h.store.commit('default', [], claimUpTo(1))).claimed[0]!;
    assert.equal(first.id, a1);
    const hit = await h.store.commit('default', [rateLimited(first)], claimUpTo(5));
    assert.deepEqual(hit.written, [true]);
    assert.deepEqual(
      hit.claimed.map((c) => c.id),
      [b1, free],
      'only key a is held',
    );
    assert.ok(hit.nextDueAt !== null && hit.nextDueAt >= hit.redisNow + HOLD - 2, `due ${hit.nextDueAt}`);
    assert.equal((await h.store.commit('default', [], claimUpTo(5))).claimed.length, 0);
    await new Promise((res) => setTimeout(res, hit.nextDueAt! - hit.redisNow + 30));
    const after = await h.store.commit('default', [], claimUpTo(5));
    // a2 keeps its place ahead of the retried a1, which is due after HOLD too.
    assert.equal(after.claimed[0]?.id, a2);
    assert.ok(after.redisNow >= hit.redisNow + HOLD);
    // The hit used no attempt.
    const retried =
      after.claimed.find((c) => c.id === a1) ??
      (await h.store.commit('default', [], claimUpTo(5))).claimed[0];
    assert.equal(retried?.attempt ?? 1, 1);
  });
});
