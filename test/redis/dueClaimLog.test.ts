// Redis only: THE DUE CLAIM (lua/include/lcClaimDue.lua) writes the claim's audit entry of a due
// parked job taken straight with its WAKE, in the one HSET of its claim (lcClaim.lua, addLogOne in
// addLog.lua): at the next place of the log, and the oldest entry falls out of a full log, as every
// other entry's write (addLog) does (LOG_CAP; MemoryJob.ts's log splice).
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { claimUpTo, newJob } from '../support/claimOps.js';
import { LOG_CAP } from '../../src/store/storeConstants.js';
import type { CommitOp } from '../../src/store/types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the due claim of a parked job, its audit entry', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  /** Enqueues, claims and parks `id` until now + 30 ms, then waits until it is due. */
  async function parkedDue(id: string): Promise<void> {
    await h.store.enqueue('default', [newJob(id)]);
    const [c] = (await h.store.commit('default', [], claimUpTo(1))).claimed;
    assert.equal(c?.id, id);
    const park: CommitOp = {
      kind: 'park',
      id,
      token: c.token,
      wakeAt: (await h.store.now()) + 30,
      snapshot: '{"w":1}',
      state: '"sleeping"',
      log: ['{"type":"parked"}'],
    };
    assert.deepEqual((await h.store.commit('default', [park])).written, [true]);
    await sleep(50);
  }

  it('writes the claim entry after the log it has, and counts it', async () => {
    h = new Harness(redis);
    await parkedDue('p');
    const [c] = (await h.store.commit('default', [], claimUpTo(5))).claimed;
    assert.equal(c?.id, 'p');
    const rec = await h.raw.hgetall(h.key('job:p'));
    assert.equal(rec.ls, '4');
    assert.match(rec.l4!, /^\d+ claimed$/);
    assert.equal(rec.ra, undefined, 'its wake time is gone');
    assert.deepEqual(
      (await h.store.getLog('p')).map((e) => e.type),
      ['enqueued', 'claimed', 'parked', 'claimed'],
    );
  });

  it('drops the oldest entry of a full log as it writes the claim entry', async () => {
    h = new Harness(redis);
    await parkedDue('f');
    // A full log: LOG_CAP entries, the oldest at l1 (l2, l3 as the park left them).
    await h.raw.hset(h.key('job:f'), 'ls', String(LOG_CAP), 'l1', '1 first');
    const [c] = (await h.store.commit('default', [], claimUpTo(5))).claimed;
    assert.equal(c?.id, 'f');
    const rec = await h.raw.hgetall(h.key('job:f'));
    assert.equal(rec.ls, String(LOG_CAP + 1));
    assert.equal(rec.l1, undefined, 'the oldest entry falls out');
    assert.match(rec[`l${LOG_CAP + 1}`]!, /^\d+ claimed$/);
    assert.ok(rec.l2, 'the entries after the oldest stay');
  });
});
