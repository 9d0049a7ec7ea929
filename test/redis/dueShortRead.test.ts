// Redis only: THE SHORT DUE READ (lua/include/lcClaimDue.lua). A due parked job's record is read
// by 8 fields and its field count; only a record whose count is exactly what a park leaves skips
// the rare fields. Each rare field written into a parked record must still reach its claim (or
// its WAKE: a cancel requested, a band), as the full read gave it, and a record without
// any is claimed as before. Both the claim (THE DUE CLAIM) and THE EARLY LEASE read so.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { claimUpTo, newJob } from '../support/claimOps.js';
import { BAND } from '../../src/store/storeConstants.js';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A rare field written into a parked record, and what its claim must show of it. */
const RARE: { id: string; field: string; value: string; check: (c: ClaimedJob) => void }[] = [
  { id: 'v', field: 'v', value: '3', check: (c) => assert.equal(c.version, 3) },
  { id: 'ma', field: 'ma', value: '7', check: (c) => assert.equal(c.maxAttempts, 7) },
  { id: 'a', field: 'a', value: '2', check: (c) => assert.equal(c.attempt, 2) },
  { id: 'lr', field: 'lr', value: '1', check: (c) => assert.equal(c.leaseRequeues, 1) },
  {
    id: 'opt',
    field: 'opt',
    value: '{"timeoutMs":5}',
    check: (c) => assert.equal(c.options, '{"timeoutMs":5}'),
  },
  { id: 'io', field: 'io', value: '2', check: (c) => assert.equal(c.inbox, 2) },
  { id: 'ib', field: 'ib', value: '1', check: (c) => assert.equal(c.hasInbox, true) },
  { id: 'rl', field: 'rl', value: '2', check: (c) => assert.equal(c.retryLaters, 2) },
];

describe('the short due read of a parked job', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  /** Enqueues, claims and parks `ids` until now + `inMs`, as a pipeline's park writes them. */
  async function park(ids: string[], inMs: number): Promise<void> {
    await h.store.enqueue(
      'default',
      ids.map((id) => newJob(id)),
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

  /** Writes each rare field into its job's record (after its park), and a progress into `p`. */
  async function addRare(): Promise<void> {
    for (const r of RARE) await h.raw.hset(h.key(`job:${r.id}`), r.field, r.value);
    await h.raw.hset(h.key('job:p'), 'p', '{"n":1}');
  }

  function checkClaimed(claimed: ClaimedJob[]): void {
    const byId = new Map(claimed.map((c) => [c.id, c]));
    for (const r of RARE) {
      const c = byId.get(r.id);
      assert.ok(c, `${r.id} claimed`);
      r.check(c);
    }
    for (const id of ['plain', 'p']) {
      const c = byId.get(id);
      assert.ok(c, `${id} claimed`);
      assert.equal(c.snapshot, '{"w":1}');
      assert.equal(c.attempt, 1);
      assert.equal(c.version, 1);
      assert.equal(c.options, undefined);
      assert.equal(c.hasInbox, false);
    }
    for (const c of claimed) assert.equal(c.snapshot, '{"w":1}', `${c.id}'s snapshot`);
  }

  const ids = [...RARE.map((r) => r.id), 'plain', 'p', 'cx', 'pr'];

  /** The jobs whose rare field acts at the WAKE: a cancel requested, a band. */
  async function addWakeFields(): Promise<void> {
    await h.raw.hset(h.key('job:cx'), 'cx', '1');
    await h.raw.hset(h.key('job:pr'), 'pr', '1');
  }

  async function checkWakeFields(claimed: ClaimedJob[]): Promise<void> {
    assert.equal(
      claimed.find((c) => c.id === 'cx'),
      undefined,
      'a cancel requested is not claimed',
    );
    assert.equal((await h.store.getJob('cx'))?.status, 'cancelled');
    const pr = claimed.find((c) => c.id === 'pr');
    assert.ok(pr, 'pr claimed');
    assert.ok(Number(await h.raw.hget(h.key('job:pr'), 'qs')) < 2 * BAND, 'its place is in its band');
  }

  it('claims each due parked job with its rare fields, and one without any as before', async () => {
    h = new Harness(redis);
    await park(ids, 30);
    await addRare();
    await addWakeFields();
    await sleep(50);
    const { claimed } = await h.store.commit('default', [], claimUpTo(ids.length));
    checkClaimed(claimed);
    await checkWakeFields(claimed);
    assert.equal(claimed.length, ids.length - 1);
  });

  it('holds each parked job due within the lead with its rare fields (the early lease)', async () => {
    h = new Harness(redis);
    await park(ids, 10_000);
    await addRare();
    const { claimed } = await h.store.commit('default', [], {
      ...claimUpTo(1),
      leadMs: 60_000,
      hold: ids.length,
    });
    // Every one held (none is due: the claim of 1 found none to run).
    for (const c of claimed) assert.ok(c.holdUntil, `${c.id} held`);
    checkClaimed(claimed);
    assert.equal(claimed.length, ids.length);
  });
});
