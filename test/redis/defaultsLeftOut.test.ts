// Redis only: THE DEFAULTS LEFT OUT (data format 4, lua/include/lcCreate.lua): a job hash holds `v`
// and `ma` unless both are the defaults (recordSchema.ts BASE_DEFAULTS: version 1, max attempts 4). Every reader takes an absent one for its default: the claim's reply, a record read,
// the count of a machine's unfinished jobs; THE BARE RECORD's count (lua/include/lcBare.lua) takes
// them as read, so a record with one field more than the bare ones is still read whole, whichever
// of the two it holds, and so is a record of format 3, which holds both whatever they are.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { BAND_AND_KEY_KINDS, doneWith, recordJob } from '../support/claimOps.js';
import { BASE_DEFAULTS } from '../../src/store/recordSchema.js';
import { queueKeys } from '../../src/store/keys.js';
import { DEFAULT_MAX_ATTEMPTS } from '../../src/runtime/backoff.js';
import type { NewJob } from '../../src/store/types.js';

const job = recordJob(4);

/** A version and max attempts each default or not; `v`, `ma`: what the hash holds (both or neither). */
const VARIANTS: { name: string; extra: Partial<NewJob>; v: string | null; ma: string | null }[] = [
  { name: 'both defaults', extra: {}, v: null, ma: null },
  { name: 'its own max attempts', extra: { maxAttempts: 3 }, v: '1', ma: '3' },
  { name: 'its own version', extra: { version: 2 }, v: '2', ma: '4' },
  { name: 'its own version and max attempts', extra: { version: 5, maxAttempts: 9 }, v: '5', ma: '9' },
];

const KINDS = BAND_AND_KEY_KINDS;

describe('the defaults left out: no v, ma when they hold the defaults', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h?.close());

  it("the stored defaults are the runtime's (most jobs leave both out)", () => {
    assert.equal(BASE_DEFAULTS.maxAttempts, DEFAULT_MAX_ATTEMPTS);
    assert.equal(BASE_DEFAULTS.version, 1);
  });

  for (const variant of VARIANTS) {
    it(`a job with ${variant.name}: stored so, claimed, read and counted with them, of every band and key`, async () => {
      h = new Harness(redis);
      const version = variant.extra.version ?? 1;
      const maxAttempts = variant.extra.maxAttempts ?? 4;
      for (const [i, [kind, extra]] of KINDS.entries()) {
        const e = { ...variant.extra, ...extra };
        const [bare, opts, w1] = [`bare${i}`, `opts${i}`, `w${i}`];
        // A bare one, one with an option (one field more), one a watcher waits for (likewise).
        await h.store.enqueue('default', [
          job(bare, e),
          job(opts, { ...e, options: '{"timeoutMs":50}' }),
          job(w1, e),
        ]);
        for (const id of [bare, opts, w1])
          assert.deepEqual(
            await h.raw.hmget(h.key(`job:${id}`), 'v', 'ma'),
            [variant.v, variant.ma],
            `${kind}: ${id}'s v, ma`,
          );
        const rec = (await h.store.getJob(bare, 'default'))!;
        assert.deepEqual([rec.version, rec.maxAttempts], [version, maxAttempts], kind);
        assert.equal(await h.store.countUnfinished('m', version), 3, `${kind}: counted at its version`);
        const claimed = await h.claimAs('w', { max: 3 });
        assert.deepEqual(
          claimed.map((c) => [c.id, c.version, c.maxAttempts, c.options]),
          [
            [bare, version, maxAttempts, undefined],
            [opts, version, maxAttempts, '{"timeoutMs":50}'],
            [w1, version, maxAttempts, undefined],
          ],
          kind,
        );
        await h.store.watchJob(w1, 'default', `waiter-${i}`);
        const res = await h.store.commit('default', claimed.map(doneWith('"ok"')));
        assert.deepEqual(res.written, [true, true, true], kind);
        assert.equal(await h.raw.hget(h.key(`job:${w1}`), 'wt'), null, `${kind}: the watcher was told`);
        assert.ok((await h.raw.llen(h.key(`result:waiter-${i}`))) > 0, `${kind}: its result was pushed`);
        for (const id of [bare, opts, w1]) {
          const done = (await h.store.getJob(id, 'default'))!;
          assert.deepEqual([done.status, done.version, done.maxAttempts], ['done', version, maxAttempts]);
        }
      }
    });
  }

  it('a record of format 3 (v and ma written whatever they hold) is claimed, read and done as before', async () => {
    h = new Harness(redis);
    for (const [i, [kind, extra]] of KINDS.entries()) {
      const [bare, opts, w1] = [`bare${i}`, `opts${i}`, `w${i}`];
      await h.store.enqueue('default', [
        job(bare, extra),
        job(opts, { ...extra, options: '{"timeoutMs":50}' }),
        job(w1, extra),
      ]);
      // As format 3 wrote them: v and ma in every record.
      for (const id of [bare, opts, w1]) await h.raw.hset(h.key(`job:${id}`), 'v', '1', 'ma', '4');
      const claimed = await h.claimAs('w', { max: 3 });
      assert.deepEqual(
        claimed.map((c) => [c.id, c.version, c.maxAttempts, c.options]),
        [
          [bare, 1, 4, undefined],
          [opts, 1, 4, '{"timeoutMs":50}'],
          [w1, 1, 4, undefined],
        ],
        kind,
      );
      await h.store.watchJob(w1, 'default', `waiter-${i}`);
      const res = await h.store.commit('default', claimed.map(doneWith('"ok"')));
      assert.deepEqual(res.written, [true, true, true], kind);
      assert.ok((await h.raw.llen(h.key(`result:waiter-${i}`))) > 0, `${kind}: its result was pushed`);
      for (const id of [bare, opts, w1]) {
        const done = (await h.store.getJob(id, 'default'))!;
        assert.deepEqual([done.status, done.version, done.maxAttempts], ['done', 1, 4], `${kind}: ${id}`);
        assert.deepEqual(await h.raw.hmget(h.key(`job:${id}`), 'v', 'ma'), ['1', '4'], 'kept as written');
      }
    }
  });

  it('a record with v but no ma (a migrate wrote v) is read whole at its done: watched, it pushes its result', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job('mig'), job('plain')]);
    const claimed = await h.claimAs('w', { max: 2 });
    // As a migrate op leaves it (commit-12.lua writes `v` alone).
    for (const id of ['mig', 'plain']) await h.raw.hset(h.key(`job:${id}`), 'v', '2');
    await h.store.watchJob('mig', 'default', 'waiter-m');
    const res = await h.store.commit('default', claimed.map(doneWith('"ok"')));
    assert.deepEqual(res.written, [true, true]);
    assert.ok((await h.raw.llen(h.key('result:waiter-m'))) > 0, 'its result was pushed');
    for (const id of ['mig', 'plain']) {
      const done = (await h.store.getJob(id, 'default'))!;
      assert.deepEqual([done.status, done.version, done.maxAttempts], ['done', 2, 4]);
    }
  });

  it('an ingress entry of the default version and max attempts is stored without them too', async () => {
    h = new Harness(redis);
    // Oldest first: the drain takes the list's tail.
    await h.raw.lpush(queueKeys(h.prefix, 'default').ingress, 'a', 'b');
    const res = await h.store.drainIngress('default', 10, (raw) => {
      const id = raw.toString();
      return { job: job(id, id === 'b' ? { version: 3, maxAttempts: 2 } : {}), ownId: false };
    });
    assert.equal(res.made, 2);
    assert.deepEqual(await h.raw.hmget(h.key('job:a'), 'v', 'ma'), [null, null]);
    assert.deepEqual(await h.raw.hmget(h.key('job:b'), 'v', 'ma'), ['3', '2']);
    const claimed = await h.claimAs('w', { max: 2 });
    assert.deepEqual(
      claimed.map((c) => [c.id, c.version, c.maxAttempts]),
      [
        ['a', 1, 4],
        ['b', 3, 2],
      ],
    );
  });
});
