// THE READY LIST (format 3, lua/include/lcReady.lua): runnable jobs of the normal band without a
// key that enter at a fresh place go to the list `ready`, the others to the `queued` zset; the
// claim merges the two by place (the order one zset gave); a job that leaves the list other than
// by a claim leaves a stale entry (`readygone`) that the claim drops and the counts leave out.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { cancelDescendants } from '../../src/client/cancelDescendants.js';
import type { NewJob } from '../../src/store/types.js';

const job = (id: string, extra: Partial<NewJob> = {}): NewJob => ({
  id,
  machine: 'm',
  version: 1,
  input: '{}',
  band: 2,
  delayMs: 0,
  maxAttempts: 3,
  ...extra,
});

describe('the ready list beside `queued`', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const ready = () => h.raw.lrange(h.key('ready'), 0, -1);
  const zset = () => h.raw.zrange(h.key('queued'), '0', '-1');
  const claimIds = async (max: number) => (await h.claimAs('w', { max })).map((c) => c.id);
  const listed = async () =>
    (await h.store.list({ queue: 'default', status: 'queued', limit: 1000 })).jobs.map((j) => j.id);
  /** The counts, the listing and the line as the claim takes it say the same. */
  const agree = async (ids: string[]) => {
    assert.equal((await h.store.counts('default')).queued, ids.length, 'counts');
    assert.deepEqual(await h.line(), ids, 'the line');
    assert.deepEqual((await listed()).sort(), [...ids].sort(), 'the listing');
  };

  it('puts the normal band without a key in the list, the rest in the zset; a claim takes them by place', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job('n1')]);
    await h.store.enqueue('default', [job('hi', { band: 0 })]);
    await h.store.enqueue('default', [job('lo', { band: 3 })]);
    await h.store.enqueue('default', [job('k1', { concurrencyKey: 'k' })]);
    await h.store.enqueue('default', [job('n2'), job('n3')]);
    assert.deepEqual(await ready(), ['n1', 'n2', 'n3']);
    assert.deepEqual(await zset(), ['hi', 'k1', 'lo']);
    await agree(['hi', 'n1', 'k1', 'n2', 'n3', 'lo']);
    assert.deepEqual(await claimIds(2), ['hi', 'n1']);
    assert.deepEqual(await claimIds(10), ['k1', 'n2', 'n3', 'lo']);
    assert.deepEqual([await ready(), await zset()], [[], []]);
  });

  it('a requeue keeps its older place in the zset, ahead of the list; a retry goes to the back of the list', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job('a'), job('b'), job('c')]);
    const [a, b] = await h.claimAs('w', { max: 2 });
    await h.store.enqueue('default', [job('d')]);
    await h.store.commit('default', [
      { kind: 'requeue', id: a!.id, token: a!.token, log: [] },
      {
        kind: 'retry',
        id: b!.id,
        token: b!.token,
        error: '{"message":"x"}',
        delayMs: 0,
        attempt: 2,
        log: [],
      },
    ]);
    await h.store.enqueue('default', [job('e')]);
    assert.deepEqual(await zset(), ['a']);
    assert.deepEqual(await ready(), ['c', 'd', 'b', 'e']);
    await agree(['a', 'c', 'd', 'b', 'e']);
    assert.deepEqual(await claimIds(3), ['a', 'c', 'd']);
    assert.deepEqual(await claimIds(3), ['b', 'e']);
  });

  it('a delayed job come due enters the back of the list at its fresh place', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job('a'), job('later', { delayMs: 1 })]);
    await new Promise((r) => setTimeout(r, 20));
    await h.store.enqueue('default', [job('b')]);
    assert.deepEqual(await claimIds(1), ['a']);
    assert.deepEqual(await ready(), ['b', 'later']);
    assert.deepEqual(await claimIds(5), ['b', 'later']);
  });

  it('a format-2 store: the jobs it left in `queued` are taken in their places among the list', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job('a'), job('b')]);
    // As format 2 kept them: in the zset at their places, no list.
    const qs = async (id: string) => (await h.raw.hget(h.key(`job:${id}`), 'qs'))!;
    await h.raw.zadd(h.key('queued'), await qs('a'), 'a', await qs('b'), 'b');
    await h.raw.del(h.key('ready'));
    await h.store.enqueue('default', [job('c'), job('d')]);
    assert.deepEqual(await ready(), ['c', 'd']);
    await agree(['a', 'b', 'c', 'd']);
    assert.deepEqual(await claimIds(3), ['a', 'b', 'c']);
    assert.deepEqual(await claimIds(3), ['d']);
  });

  it('a cancel of a job in the list marks its entry stale: counted out, listed out, dropped by the claim', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job('a'), job('b'), job('c')]);
    assert.equal((await h.store.cancel('b', 'default', 'no')).result, 'cancelled');
    assert.deepEqual(await ready(), ['a', 'b', 'c'], 'no LREM');
    assert.deepEqual(await h.raw.hgetall(h.key('readygone')), { b: '1', '': '1' });
    await agree(['a', 'c']);
    assert.deepEqual(await claimIds(2), ['a', 'c']);
    assert.equal(await h.raw.exists(h.key('readygone')), 0, 'its mark is gone with its entry');
    assert.deepEqual(await ready(), []);
    assert.equal((await h.store.getJob('b'))?.status, 'cancelled');
  });

  it('a job that left the list and entered it again is claimed once (its stale entry first)', async () => {
    h = new Harness(redis);
    const debounce = { key: 'dk', mode: 'debounce' as const, ttlMs: 5 };
    await h.store.enqueue('default', [job('first')]);
    await h.store.enqueue('default', [job('x', { dedupe: debounce })]);
    await new Promise((r) => setTimeout(r, 20));
    // This claim takes `first` and moves x, come due, to the back of the list.
    assert.deepEqual(await claimIds(1), ['first']);
    assert.deepEqual(await ready(), ['x']);
    // Debounced again: x leaves the list for `delayed` (its entry stale), then comes due again.
    await h.store.enqueue('default', [job('y', { dedupe: debounce })]);
    assert.deepEqual(await h.raw.hgetall(h.key('readygone')), { x: '1', '': '1' });
    assert.equal((await h.store.counts('default')).queued, 0);
    await new Promise((r) => setTimeout(r, 20));
    await h.store.enqueue('default', [job('z')]);
    assert.deepEqual(await claimIds(10), ['z', 'x']);
    assert.deepEqual(await claimIds(10), []);
    assert.equal(await h.raw.exists(h.key('readygone')), 0);
  });

  it('cancels many queued jobs of the list, each in O(1); the claim takes exactly the others, in order', async () => {
    h = new Harness(redis);
    const N = 4000;
    const ids = Array.from({ length: N }, (_, i) => `j${String(i).padStart(5, '0')}`);
    for (let i = 0; i < N; i += 1000)
      await h.store.enqueue(
        'default',
        ids.slice(i, i + 1000).map((id) => job(id)),
      );
    const gone = ids.filter((_, i) => i % 2 === 1);
    const t0 = performance.now();
    for (let i = 0; i < gone.length; i += 200)
      await Promise.all(gone.slice(i, i + 200).map((id) => h.store.cancel(id, 'default', 'no')));
    const ms = performance.now() - t0;
    const kept = ids.filter((_, i) => i % 2 === 0);
    assert.equal((await h.store.counts('default')).queued, kept.length);
    assert.equal(Number(await h.raw.hget(h.key('readygone'), '')), gone.length);
    const claimed: string[] = [];
    for (;;) {
      const got = await claimIds(1000);
      if (got.length === 0) break;
      claimed.push(...got);
    }
    assert.deepEqual(claimed, kept);
    assert.equal(await h.raw.exists(h.key('readygone')), 0);
    assert.equal(await h.raw.llen(h.key('ready')), 0);
    assert.ok(ms < 20_000, `${gone.length} cancels took ${ms} ms`);
  });

  it("a subtree cancel ends a parent's many queued children in the list", async () => {
    h = new Harness(redis);
    const N = 1000;
    await h.store.enqueue('default', [job('p')]);
    const [p] = await h.claimAs('w', { max: 1 });
    await h.store.fanOpen('p', 'default', 'g', N, 'collect', p!.token);
    const kids = Array.from({ length: N }, (_, i) => `p.g.${i}`);
    await h.store.enqueue(
      'default',
      kids.map((id, i) => job(id, { parentId: 'p', group: 'g', index: i, parentToken: p!.token })),
    );
    await h.store.enqueue('default', [job('other')]);
    assert.equal(await h.raw.llen(h.key('ready')), N + 1);
    await h.store.cancel('p', 'default', 'stop');
    await cancelDescendants(h.store, 'p');
    for (const id of [kids[0]!, kids[N - 1]!]) assert.equal((await h.store.getJob(id))?.status, 'cancelled');
    await agree(['other']);
    assert.deepEqual(await claimIds(10), ['other']);
    assert.equal(await h.raw.exists(h.key('readygone')), 0);
  });
});
