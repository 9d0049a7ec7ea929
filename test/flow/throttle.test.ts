// The throttle (a GCRA in the claim; docs/flow-control.md) on both stores: in any window of
// perMs, by the store's own clock (Redis TIME), no more than limit + burst jobs start; a held
// back job stays queued with no attempt used; the claim says when to look again.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const job = defineJob({ name: 't', work: () => 1 });
const claim = { workerId: 'w1', max: 50, leaseMs: 60_000, loadMachines: [] };
/** How far behind now a burst-0 throttle's schedule may lag (commit-12.lua, memory/claimJobs.ts). */
const THROTTLE_CARRY_MS = 50;

/**
 * How many starts a burst-0 throttle of one start per `T` ms allows to claims made at `times`
 * (each asking for more than it can start), its schedule lagging now by at most `lag` ms (the
 * lateness carried; 0: dropped). The GCRA of commit-12.lua and memory/claimJobs.ts.
 */
function startsAllowed(times: readonly number[], T: number, lag: number): number {
  let tat = 0;
  let n = 0;
  for (const now of times) {
    tat = Math.max(tat, now - lag);
    const allowed = tat <= now ? Math.floor((now - tat) / T) + 1 : 0;
    tat += allowed * T;
    n += allowed;
  }
  return n;
}

describeOnEachStore('throttle', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('never starts more than limit + burst jobs in any window, by the store clock', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    const limit = 4;
    const perMs = 100;
    const burst = 2;
    await client.setQueueLimits('default', { rateLimit: { limit, perMs, burst } });
    assert.deepEqual((await client.queueLimits('default')).limits, { rateLimit: { limit, perMs, burst } });
    await client.enqueueMany(Array.from({ length: 30 }, (_, i) => ({ machine: 't', input: i })));
    const starts: number[] = [];
    let first = true;
    while (starts.length < 20) {
      const r = await h.store.commit('default', [], claim);
      for (const _ of r.claimed) starts.push(r.redisNow);
      if (first) {
        // The first look at a fresh throttle starts the burst (burst + 1 at once) and no more.
        assert.equal(r.claimed.length, burst + 1);
        first = false;
      }
      // Held back: it says when the next start is allowed (the supervisor sleeps until then).
      if (r.claimed.length < claim.max) assert.ok(r.nextDueAt !== null && r.nextDueAt > r.redisNow - 1);
      await new Promise((res) => setTimeout(res, 5));
    }
    for (const t of starts) {
      const inWindow = starts.filter((s) => s >= t && s < t + perMs).length;
      assert.ok(inWindow <= limit + burst, `${inWindow} starts in the ${perMs} ms from ${t}`);
    }
    // The held back jobs are still queued; none used an attempt.
    const counts = await h.store.counts('default');
    assert.equal(counts.queued + counts.active, 30);
    await client.setQueueLimits('default', { rateLimit: null });
    assert.equal((await h.store.commit('default', [], claim)).claimed.length, 30 - starts.length);
  });

  it('with burst 0 a late claim keeps its lateness (up to one interval): the rate is kept, at most limit + 1 per window', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    const limit = 4;
    const perMs = 200;
    const T = perMs / limit;
    await client.setQueueLimits('default', { rateLimit: { limit, perMs, burst: 0 } });
    await client.enqueueMany(Array.from({ length: 40 }, (_, i) => ({ machine: 't', input: i })));
    const starts: number[] = [];
    /** When each claim was made (Redis time), whatever it started. */
    const claims: number[] = [];
    // Each claim comes ~70 ms after the last (late by 20 ms for an interval of 50): a throttle
    // that drops the lateness starts one per 70 ms (71% of its rate). On a loaded host the
    // sleeps run long; so the starts are judged against what the rule allows at the times the
    // claims were actually made, not against the times they were meant to be made.
    while (starts.length < 24) {
      const r = await h.store.commit('default', [], claim);
      claims.push(r.redisNow);
      for (const _ of r.claimed) starts.push(r.redisNow);
      await new Promise((res) => setTimeout(res, 70));
    }
    const carried = startsAllowed(claims, T, Math.min(T, THROTTLE_CARRY_MS));
    const dropped = startsAllowed(claims, T, 0);
    assert.ok(
      starts.length >= carried - 2,
      `${starts.length} starts in ${claims.length} claims (the rule allows ${carried}; ${dropped} if the lateness were dropped)`,
    );
    // The claims came late enough for the lateness to count: a throttle dropping it fails here.
    assert.ok(
      starts.length > dropped + 2,
      `${starts.length} starts, as many as a throttle that drops the lateness (${dropped})`,
    );
    for (const t of starts) {
      const inWindow = starts.filter((s) => s >= t && s < t + perMs).length;
      assert.ok(inWindow <= limit + 1, `${inWindow} starts in the ${perMs} ms from ${t}`);
    }
  });

  it('says who is throttled: throttledUntil is when the next start is allowed, absent while one may start now', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { rateLimit: { limit: 1, perMs: 60_000, burst: 1 } });
    assert.equal(
      (await client.queueLimits('default')).throttledUntil,
      undefined,
      'a fresh throttle holds nothing',
    );
    await client.enqueueMany(Array.from({ length: 3 }, (_, i) => ({ machine: 't', input: i })));
    const r = await h.store.commit('default', [], claim);
    assert.equal(r.claimed.length, 2, 'one start and its burst of one');
    const view = await client.queueLimits('default');
    assert.ok(view.throttledUntil !== undefined, 'the third job waits for the throttle');
    // One start per 60 s: the next one about a minute after these two.
    assert.ok(
      Math.abs(view.throttledUntil - (r.redisNow + 60_000)) < 2_000,
      `${view.throttledUntil - r.redisNow}`,
    );
    assert.equal(r.nextDueAt, view.throttledUntil, 'the claim and the view agree');
    await client.setQueueLimits('default', { rateLimit: null });
    assert.equal(
      (await client.queueLimits('default')).throttledUntil,
      undefined,
      'a cleared throttle holds nothing',
    );
  });
});
