// THE DUE CLAIM (lua/include/lcClaimDue.lua; MemoryStore's promoteDue in memory/commitOps.ts) on
// both stores: a claim takes its share of the due jobs (as many as it wants), in their place in
// line (behind the jobs queued in their band, in due order, before a lower band's), a due job
// first in line claimed straight from `delayed` with the record its WAKE and claim leave; and the
// flow gate holds a due job back as it holds a queued one (a paused queue, a full key, a full
// machine gate, the throttle), which on Redis is the rule that keeps such a job off the straight path.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { claimUpTo, doneOp, newJob } from '../support/claimOps.js';

const jobs = ['j', 'a', 'b'].map((name) => defineJob({ name, work: () => 1 }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeOnEachStore('the due claim', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  const claimed = async (max: number): Promise<string[]> =>
    (await h.store.commit('default', [], claimUpTo(max))).claimed.map((c) => c.id);

  /** Claims `id` (queued, the only job in line) and parks it until now + `ms`. */
  async function parkFor(id: string, ms: number): Promise<ClaimedJob> {
    const [c] = (await h.store.commit('default', [], claimUpTo(1))).claimed;
    assert.equal(c?.id, id);
    const park: CommitOp = {
      kind: 'park',
      id,
      token: c.token,
      wakeAt: (await h.store.now()) + ms,
      snapshot: '{"w":1}',
      state: '"sleeping"',
      log: ['{"type":"parked"}'],
    };
    assert.deepEqual((await h.store.commit('default', [park])).written, [true]);
    return c;
  }

  it('claims a parked job due with nothing queued, with its snapshot; its record as a woken, claimed one', async () => {
    h = world();
    await h.store.enqueue('default', [newJob('p')]);
    await parkFor('p', 30);
    await h.store.enqueue('default', [newJob('y')]);
    const [y] = (await h.store.commit('default', [], claimUpTo(1))).claimed;
    assert.equal(y?.id, 'y');
    await sleep(50);
    const [c] = (await h.store.commit('default', [], claimUpTo(5))).claimed;
    assert.equal(c?.id, 'p');
    assert.equal(c.snapshot, '{"w":1}', 'it resumes from its parked snapshot');
    const job = (await h.store.getJob('p'))!;
    assert.equal(job.status, 'working');
    assert.equal(job.runAt ?? null, null, 'no wake time left');
    assert.equal(await h.indexScore('delayed', 'p'), null);
    assert.equal(await h.indexScore('queued', 'p'), null);
    assert.notEqual(await h.indexScore('active', 'p'), null);
    assert.equal((await h.store.counts('default')).waiting, 0);
    assert.deepEqual(
      (await h.store.getLog('p')).map((e) => e.type),
      ['enqueued', 'claimed', 'parked', 'claimed'],
    );
    // Its place in line is the one its wake gave it, behind y (enqueued after p first ran): both
    // requeued, y goes first.
    const requeue = (c2: ClaimedJob): CommitOp => ({ kind: 'requeue', id: c2.id, token: c2.token, log: [] });
    assert.deepEqual((await h.store.commit('default', [requeue(c), requeue(y)])).written, [true, true]);
    assert.deepEqual(await claimed(1), ['y']);
    assert.deepEqual(await claimed(1), ['p']);
  });

  // A due record's rare fields reach the claim (Redis: lcClaimDue.lua's DUE READ), whichever way
  // the record is read.
  it('claims a due parked job that has a rare field with it (its options, a later attempt)', async () => {
    h = world();
    await h.store.enqueue('default', [newJob('o', { options: '{"timeoutMs":5000}' })]);
    await parkFor('o', 30);
    await sleep(50);
    const [c] = (await h.store.commit('default', [], claimUpTo(5))).claimed;
    assert.equal(c?.id, 'o');
    assert.equal(c.options, '{"timeoutMs":5000}');
    assert.equal(c.snapshot, '{"w":1}');
    const retry: CommitOp = {
      kind: 'retry',
      id: 'o',
      token: c.token,
      error: '{"message":"x"}',
      delayMs: 30,
      attempt: 2,
      log: [],
    };
    assert.deepEqual((await h.store.commit('default', [retry])).written, [true]);
    await sleep(50);
    const [again] = (await h.store.commit('default', [], claimUpTo(5))).claimed;
    assert.equal(again?.id, 'o');
    assert.equal(again.attempt, 2);
    assert.equal(again.options, '{"timeoutMs":5000}');
  });

  it('puts due jobs behind the jobs queued in their band, in due order, before a lower band', async () => {
    h = world();
    await h.store.enqueue('default', [newJob('d1', { delayMs: 20 }), newJob('d2', { delayMs: 30 })]);
    await h.store.enqueue('default', [newJob('q'), newJob('low', { band: 3 })]);
    await sleep(50);
    assert.deepEqual(await claimed(1), ['q']);
    assert.deepEqual(await claimed(2), ['d1', 'd2']);
    assert.deepEqual(await claimed(2), ['low']);
  });

  it('claims a due job of a higher band before the normal band queued, and one queued higher first', async () => {
    h = world();
    await h.store.enqueue('default', [newJob('high', { band: 1, delayMs: 20 }), newJob('n')]);
    await h.store.enqueue('default', [newJob('crit', { band: 0 })]);
    await sleep(40);
    assert.deepEqual(await claimed(1), ['crit']);
    assert.deepEqual(await claimed(1), ['high']);
    assert.deepEqual(await claimed(1), ['n']);
    // First in line though the queue is not empty (Redis: straight from `delayed`).
    await h.store.enqueue('default', [newJob('h2', { band: 1, delayMs: 10 }), newJob('n2')]);
    await sleep(30);
    assert.deepEqual(await claimed(1), ['h2']);
    assert.equal((await h.store.getJob('h2'))?.status, 'working');
    assert.deepEqual(await claimed(2), ['n2']);
  });

  it('takes as many due jobs as the claim wants; the others stay due for the next claims', async () => {
    h = world();
    await h.store.enqueue(
      'default',
      ['e1', 'e2', 'e3', 'e4', 'e5'].map((id, i) => newJob(id, { delayMs: 20 + i })),
    );
    await sleep(50);
    assert.deepEqual(await claimed(2), ['e1', 'e2']);
    assert.notEqual(await h.indexScore('delayed', 'e3'), null, 'still due, not promoted');
    assert.equal(await h.indexScore('queued', 'e3'), null);
    assert.deepEqual(await claimed(2), ['e3', 'e4']);
    assert.deepEqual(await claimed(2), ['e5']);
  });

  it('claims no due job of a paused queue; resumed, it does', async () => {
    h = world();
    const client = h.client({ jobs });
    await client.pauseQueue('default');
    await h.store.enqueue('default', [newJob('d', { delayMs: 10 })]);
    await sleep(30);
    assert.deepEqual(await claimed(5), []);
    await client.resumeQueue('default');
    assert.deepEqual(await claimed(5), ['d']);
  });

  it('sets a due job whose key is full aside in its line, and claims the due one behind it', async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', { concurrency: { perKey: 1 } });
    await h.store.enqueue('default', [newJob('k1', { concurrencyKey: 'k' })]);
    const [k1] = (await h.store.commit('default', [], claimUpTo(1))).claimed;
    await h.store.enqueue('default', [
      newJob('k2', { concurrencyKey: 'k', delayMs: 10 }),
      newJob('o', { delayMs: 15 }),
    ]);
    await sleep(40);
    assert.deepEqual(await claimed(5), ['o'], 'k2 waits for its key');
    assert.equal((await h.store.getJob('k2'))?.status, 'queued');
    const r = await h.store.commit('default', [doneOp(k1!)], claimUpTo(5));
    assert.deepEqual(
      r.claimed.map((c) => c.id),
      ['k2'],
    );
  });

  it("sets a due job whose machine's gate is full aside in the gate's line", async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', { machines: { a: { concurrency: 1 } } });
    await h.store.enqueue('default', [newJob('a1', { machine: 'a' })]);
    const [a1] = (await h.store.commit('default', [], claimUpTo(1))).claimed;
    await h.store.enqueue('default', [
      newJob('a2', { machine: 'a', delayMs: 10 }),
      newJob('b1', { machine: 'b', delayMs: 15 }),
    ]);
    await sleep(40);
    assert.deepEqual(await claimed(5), ['b1']);
    const r = await h.store.commit('default', [doneOp(a1!)], claimUpTo(5));
    assert.deepEqual(
      r.claimed.map((c) => c.id),
      ['a2'],
    );
  });

  it('starts due jobs no faster than the throttle allows', async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', { rateLimit: { limit: 1, perMs: 60_000 } });
    await h.store.enqueue('default', [newJob('t1', { delayMs: 10 }), newJob('t2', { delayMs: 12 })]);
    await sleep(30);
    assert.deepEqual(await claimed(5), ['t1']);
    assert.deepEqual(await claimed(5), []);
    assert.equal((await h.store.getJob('t2'))?.status, 'queued');
  });
});
