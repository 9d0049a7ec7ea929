// The due timers' promotion (lua/include/lcClaimDue.lua, THE DUE CLAIM), run by every claim: a due entry of
// `delayed` whose job is queued or parked moves to `queued` behind the jobs waiting there, its
// other indexes left; an entry whose job is in no such status (a stale one) only leaves `delayed`.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('the promotion of due timers', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const job = defineJob({ name: 'j', work: () => 'ran' });

  it('moves a due delayed job into `queued` behind the waiting ones, out of `delayed`', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [job] });
    const first = await client.enqueue('j', null);
    const later = await client.enqueue('j', null, { delayMs: 1 });
    await new Promise((r) => setTimeout(r, 20));
    // A claim of one: the waiting job; the due one promoted behind it, still in line.
    const [claimed] = await h.claimAs('w', { max: 1 });
    assert.equal(claimed!.id, first);
    assert.equal(await h.raw.zscore(h.key('delayed'), later), null);
    // At a fresh place of the normal band: at the back of the ready list (lcReady.lua).
    assert.equal(await h.raw.zscore(h.key('queued'), later), null);
    assert.deepEqual(await h.raw.lrange(h.key('ready'), 0, -1), [later]);
    // Its place is an integer, written as one.
    assert.match((await h.raw.hget(h.key(`job:${later}`), 'qs'))!, /^\d+$/);
    assert.equal((await client.get(later))?.status, 'queued');
    assert.equal((await h.claimAs('w', { max: 1 }))[0]!.id, later);
  });

  it('wakes an idle supervisor when a claim took its share and due jobs are left (THE DUE CLAIM)', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [job] });
    for (let i = 0; i < 3; i++) await client.enqueue('j', null, { delayMs: 1 });
    await new Promise((r) => setTimeout(r, 20));
    await h.raw.del(h.key('marker'));
    assert.equal((await h.claimAs('w', { max: 2 })).length, 2);
    assert.equal(await h.raw.zcard(h.key('queued')), 0, 'claimed straight from `delayed`');
    assert.equal(await h.raw.zcard(h.key('delayed')), 1);
    assert.equal(await h.raw.zscore(h.key('marker'), 'w'), '0');
  });

  it('drops a due entry whose job is neither queued nor parked, and touches its record not', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('j', null);
    const [c] = await h.claimAs('w', { max: 1 });
    // A stale entry of the running job, and one of a job that does not exist.
    await h.raw.zadd(h.key('delayed'), 1, id, 2, 'nosuchjob');
    const before = await h.raw.hgetall(h.key(`job:${id}`));
    // A claim takes as many due entries as it wants (THE DUE CLAIM): two for the two.
    assert.deepEqual(await h.claimAs('v', { max: 2 }), []);
    assert.equal(await h.raw.zcard(h.key('delayed')), 0);
    assert.equal(await h.raw.zcard(h.key('queued')), 0);
    assert.equal(await h.raw.llen(h.key('ready')), 0);
    assert.deepEqual(await h.raw.hgetall(h.key(`job:${id}`)), before);
    assert.equal(await h.raw.exists(h.key('job:nosuchjob')), 0);
    assert.equal((await client.get(id))?.status, 'working');
    assert.ok(c);
  });
});
