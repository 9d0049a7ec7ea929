// ROUND ROBIN BETWEEN KEYS (opt-in per queue: concurrency.fairness 'roundRobin'). NOT BUILT YET:
// this test fails on purpose on branch wt-fair-rr, the first step of the work.
//
// DESIGN (to build in both stores):
// - A keyed job of a roundRobin queue waits in its key's line (reuse ckwait:<key>, scored by a
//   fresh place), and `queued` holds at most one head per key (perKey heads when perKey is set).
//   A hash `rrq` (key -> how many of its jobs are in `queued`) says whether the key has its head.
// - ONE FUNCTION puts a job into `queued` (Lua: lcEnterQueued(id, score, ck) in include/lcFlow.lua;
//   memory: MemoryLifecycle.enterQueued), and the rule is stated there: on a roundRobin queue, a
//   keyed job whose key already has its head(s) in `queued` goes to the key's line instead.
//   Every path goes through it. Found today (Redis): lcCreate.lua:12 (enqueue-5, drainIngress-7),
//   lcMove.lua:235 (promoteDue, retries, requeue, reap-7's lease requeue, retryDead-6, send-5's
//   resume from park, dedupe.lua, fan-in and `after` dues), lcFlow.lua's lcFreeSlot, lcGate.lua's
//   lcFreeGate, lcKeyGate.lua's lcReleaseDueKeys (a raw ZADD), keyPause-3.lua and flow-3.lua (raw
//   ZUNIONSTOREs of whole lines: must become per-job entries, or put back only the heads).
//   Memory: MemoryLifecycle.ts:123/195/211/297, keyGate.ts:54, flowOps.ts:114/118/139.
// - When a key's head leaves `queued` (claimed: the claim's ZPOPMIN; cancelled, deduped: lcLeave),
//   rrq of the key goes down and the key's next job enters `queued` at the BACK of its priority
//   band (a fresh score from meta seq), so keys alternate.
// - The default path keeps its cost: the claim and lcLeave look at rrq only when `flow` has
//   fairness 'roundRobin' (a field of the one HMGET the claim makes; other scripts read it once).
// - Config: setQueueLimits / definition limits / PUT /queues/:queue/limits / CLI --fairness.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const job = defineJob({ name: 'f', work: () => 1 });
const claim = (max: number) => ({ workerId: 'w1', max, leaseMs: 60_000, loadMachines: [] });
const done = (c: ClaimedJob): CommitOp => ({
  kind: 'done',
  id: c.id,
  token: c.token,
  output: '1',
  snapshot: '',
  log: ['{"type":"done"}'],
});

describeOnEachStore('round robin between keys', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('total 2, no perKey: a small key enqueued after a big one starts its 10 within the first 25 starts', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { total: 2, fairness: 'roundRobin' } });
    await client.enqueueMany(
      Array.from({ length: 1000 }, (_, i) => ({
        machine: 'f',
        input: i,
        options: { concurrencyKey: 'big' },
      })),
    );
    const small = new Set<string>();
    for (let i = 0; i < 10; i++) small.add(await client.enqueue('f', i, { concurrencyKey: 'small' }));
    let running = (await h.store.commit('default', [], claim(2))).claimed;
    const order = running.map((c) => c.id);
    while (order.length < 25) {
      running = (await h.store.commit('default', running.map(done), claim(2))).claimed;
      order.push(...running.map((c) => c.id));
    }
    const smallStarted = order.slice(0, 25).filter((id) => small.has(id)).length;
    assert.equal(smallStarted, 10, `${smallStarted} of the small key's 10 in the first 25 starts`);
  });
});
