// Redis only: THE SHORT DUE READ (lua/include/lcClaimDue.lua). A due parked job's record is read
// by 8 fields and its field count; only a record whose count is exactly what a park leaves skips
// the rare fields, and the first record of a call that has more ends the short read for the rest
// of the call. Each rare field written into a parked record must still reach its claim (or its
// WAKE: a cancel requested, a band) as the full read gave it, whether the short read was in use
// when its record came (the plain records first) or not (a rare one first), and a record without
// any is claimed as before. Both the claim (THE DUE CLAIM) and THE EARLY LEASE read so.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { claimUpTo, newJob } from '../support/claimOps.js';
import { BAND } from '../../src/store/storeConstants.js';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A rare field written into a parked record, and what its claim must show of it. The ids put
 * them after the plain ones (`b-`) in due order (due at once: by id), or before (`a-`).
 */
const RARE: { id: string; field: string; value: string; check: (c: ClaimedJob) => void }[] = [
  { id: 'r-v', field: 'v', value: '3', check: (c) => assert.equal(c.version, 3) },
  { id: 'r-ma', field: 'ma', value: '7', check: (c) => assert.equal(c.maxAttempts, 7) },
  { id: 'r-a', field: 'a', value: '2', check: (c) => assert.equal(c.attempt, 2) },
  { id: 'r-lr', field: 'lr', value: '1', check: (c) => assert.equal(c.leaseRequeues, 1) },
  {
    id: 'r-opt',
    field: 'opt',
    value: '{"timeoutMs":5}',
    check: (c) => assert.equal(c.options, '{"timeoutMs":5}'),
  },
  { id: 'r-io', field: 'io', value: '2', check: (c) => assert.equal(c.inbox, 2) },
  { id: 'r-ib', field: 'ib', value: '1', check: (c) => assert.equal(c.hasInbox, true) },
  { id: 'r-rl', field: 'rl', value: '2', check: (c) => assert.equal(c.retryLaters, 2) },
];
/** Records with no rare field: b-p has a field more (a progress), which only the count sees. */
const PLAIN = ['b-1', 'b-2', 'b-p'];
/** The jobs whose rare field acts at the WAKE: a cancel requested, a band. */
const WAKE = ['r-cx', 'r-pr'];

describe('the short due read of a parked job', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  /** Enqueues, claims and parks `ids` until now + `inMs`, as a pipeline's park writes them. */
  async function park(ids: string[], inMs: number): Promise<void> {
    // Default attempts: a record without `v` and `ma` (THE DEFAULTS LEFT OUT), as most are.
    await h.store.enqueue(
      'default',
      ids.map((id) => newJob(id, { maxAttempts: 4 })),
    );
    const { claimed } = await h.store.commit('default', [], claimUpTo(ids.length));
    assert.equal(claimed.length, ids.length);
    const wakeAt = (await h.store.now()) + inMs;
    const parks: CommitOp[] = claimed.map((c) => ({
      kind: 'park',
      id: c.id,
      token: c.token,
      wakeAt,
      snapshot: '{"w":1}',
      state: '"sleeping"',
      log: ['{"type":"parked"}'],
    }));
    assert.ok((await h.store.commit('default', parks)).written.every(Boolean));
  }

  /** Writes each rare field into its job's record (after its park), and a progress into b-p. */
  async function addRare(first?: string): Promise<void> {
    for (const r of RARE) await h.raw.hset(h.key(`job:${r.id}`), r.field, r.value);
    if (first) await h.raw.hset(h.key(`job:${first}`), 'opt', '{"first":1}');
    await h.raw.hset(h.key('job:b-p'), 'p', '{"n":1}');
  }

  function checkClaimed(claimed: ClaimedJob[], first?: string): void {
    const byId = new Map(claimed.map((c) => [c.id, c]));
    for (const r of RARE) {
      const c = byId.get(r.id);
      assert.ok(c, `${r.id} claimed`);
      r.check(c);
    }
    if (first) assert.equal(byId.get(first)?.options, '{"first":1}');
    for (const id of PLAIN) {
      const c = byId.get(id);
      assert.ok(c, `${id} claimed`);
      assert.equal(c.attempt, 1);
      assert.equal(c.version, 1);
      assert.equal(c.maxAttempts, 4);
      assert.equal(c.status, 'working');
      assert.equal(c.leaseRequeues, 0);
      assert.equal(c.options, undefined);
      assert.equal(c.inbox, 0);
      assert.equal(c.hasInbox, false);
      assert.equal(c.retryLaters, 0);
    }
    for (const c of claimed) assert.equal(c.snapshot, '{"w":1}', `${c.id}'s snapshot`);
  }

  /** How many HLENs the server ran since the stats were reset: the short reads tried. */
  async function hlenCalls(): Promise<number> {
    const info = await h.raw.info('commandstats');
    return Number(/cmdstat_hlen:calls=(\d+)/.exec(info)?.[1] ?? 0);
  }

  async function checkWakeFields(claimed: ClaimedJob[]): Promise<void> {
    assert.equal(
      claimed.find((c) => c.id === 'r-cx'),
      undefined,
      'a cancel requested is not claimed',
    );
    assert.equal((await h.store.getJob('r-cx'))?.status, 'cancelled');
    assert.ok(
      claimed.find((c) => c.id === 'r-pr'),
      'r-pr claimed',
    );
    assert.ok(Number(await h.raw.hget(h.key('job:r-pr'), 'qs')) < 2 * BAND, 'its place is in its band');
  }

  for (const first of [undefined, 'a-first']) {
    const ids = [...(first ? [first] : []), ...PLAIN, ...RARE.map((r) => r.id), ...WAKE];
    const order = first ? 'a record with a rare field first' : 'the plain records first';

    it(`claims each due parked job with its rare fields, and one without any as before (${order})`, async () => {
      h = new Harness(redis);
      await park(ids, 30);
      await addRare(first);
      await h.raw.hset(h.key('job:r-cx'), 'cx', '1');
      await h.raw.hset(h.key('job:r-pr'), 'pr', '1');
      await sleep(50);
      await h.raw.config('RESETSTAT');
      const { claimed } = await h.store.commit('default', [], claimUpTo(ids.length));
      // The short read tried on b-1, b-2 (taken short) and b-p (its count ends it), or on the
      // rare record that comes first alone.
      assert.equal(await hlenCalls(), first ? 1 : 3);
      checkClaimed(claimed, first);
      await checkWakeFields(claimed);
      assert.equal(claimed.length, ids.length - 1);
    });

    it(`holds each parked job due within the lead with its rare fields (the early lease; ${order})`, async () => {
      h = new Harness(redis);
      await park(ids, 10_000);
      await addRare(first);
      await h.raw.config('RESETSTAT');
      const { claimed } = await h.store.commit('default', [], {
        ...claimUpTo(1),
        leadMs: 60_000,
        hold: ids.length,
      });
      assert.equal(await hlenCalls(), first ? 1 : 3);
      // Every one held (none is due: the claim of 1 found none to run).
      for (const c of claimed) assert.ok(c.holdUntil, `${c.id} held`);
      checkClaimed(claimed, first);
      assert.equal(claimed.length, ids.length);
    });
  }
});
