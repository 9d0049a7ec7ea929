// Redis only: THE BARE RECORD (lua/include/lcBare.lua). The claim and the plain done read a job's
// rare fields only when its field count says it has more than the bare ones (the base fields, the
// lease, a priority band, a concurrency key). Every record with one field more, of any band and on
// a queue with keys or without, must still be read whole: its options reach the worker, its
// watcher gets the result.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { BAND_AND_KEY_KINDS, doneWith, recordJob } from '../support/claimOps.js';

const job = recordJob(3);

const KINDS = BAND_AND_KEY_KINDS;

describe('the bare record: reads that skip the rare fields', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('on a queue with minimal records, a job of another band and a minimal one of the normal band each read right', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [
      job('min', { minimal: true }),
      job('banded', { band: 0 }),
      job('banded-opts', { band: 0, options: '{"timeoutMs":50}' }),
      job('min-banded', { minimal: true, band: 3 }),
    ]);
    const claimed = await h.claimAs('w', { max: 4 });
    assert.deepEqual(claimed.map((c) => [c.id, c.options]).sort(), [
      ['banded', undefined],
      ['banded-opts', '{"timeoutMs":50}'],
      ['min', undefined],
      ['min-banded', undefined],
    ]);
    const res = await h.store.commit('default', claimed.map(doneWith('"ok"')));
    assert.deepEqual(res.written, [true, true, true, true]);
    for (const id of ['min', 'min-banded'])
      assert.equal(await h.raw.exists(h.key(`job:${id}`)), 0, `${id} is gone`);
    for (const id of ['banded', 'banded-opts'])
      assert.equal((await h.store.getJob(id, 'default'))!.status, 'done');
  });

  it('makes each job of a batch the record it asked for: all minimal (sent without extras), mixed, minimal with an option', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job('m1', { minimal: true }), job('m2', { minimal: true })]);
    await h.store.enqueue('default', [job('x1', { minimal: true }), job('x2')]);
    await h.store.enqueue('default', [
      job('o1', { minimal: true }),
      job('o2', { minimal: true, options: '{"a":1}' }),
    ]);
    const rm = async (id: string) => h.raw.hget(h.key(`job:${id}`), 'rm');
    for (const id of ['m1', 'm2', 'x1', 'o1', 'o2']) assert.equal(await rm(id), '1', `${id} is minimal`);
    assert.equal(await rm('x2'), null, 'x2 is a full record');
    assert.equal(await h.raw.hget(h.key('job:o2'), 'opt'), '{"a":1}');
    assert.equal(await h.raw.hget(h.key('job:o1'), 'opt'), null);
    const told = (await h.store.readEvents('default', '0', 0, 1000)).map((e) => e.jobId);
    assert.deepEqual(told, ['x2'], 'only the full record is told');
  });

  it('a minimal record ending done leaves no key of its own: bare, or with an inbox', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [
      job('bare-min', { minimal: true }),
      job('inbox-min', { minimal: true }),
    ]);
    const claimed = await h.claimAs('w', { max: 2 });
    await h.store.send('inbox-min', 'default', '{"type":"X"}', 'X', 'e-1');
    assert.equal(await h.raw.exists(h.key('inbox:inbox-min')), 1, 'its inbox exists');
    const ofJob = async (id: string) => (await h.raw.keys(`${h.key('')}*`)).filter((k) => k.includes(id));
    assert.equal((await ofJob('inbox-min')).length, 3, 'its hash, inbox and inbox ids');
    const res = await h.store.commit('default', claimed.map(doneWith('"ok"')));
    assert.deepEqual(res.written, [true, true]);
    for (const id of ['bare-min', 'inbox-min'])
      assert.deepEqual(await ofJob(id), [], `nothing of ${id} is left`);
  });

  for (const [name, extra] of KINDS) {
    it(`a claim of a job of ${name} returns its options, and of one without none`, async () => {
      h = new Harness(redis);
      await h.store.enqueue('default', [
        job('bare', extra),
        job('opts', { ...extra, options: '{"timeoutMs":50}' }),
      ]);
      const claimed = await h.claimAs('w', { max: 2 });
      assert.deepEqual(
        claimed.map((c) => [c.id, c.options]),
        [
          ['bare', undefined],
          ['opts', '{"timeoutMs":50}'],
        ],
      );
    });

    it(`a plain done of a job of ${name} someone waits for pushes its result`, async () => {
      h = new Harness(redis);
      await h.store.enqueue('default', [job('w1', extra), job('plain', extra)]);
      const claimed = await h.claimAs('w', { max: 2 });
      await h.store.watchJob('w1', 'default', 'waiter-1');
      const res = await h.store.commit('default', claimed.map(doneWith('"ok"')));
      assert.deepEqual(res.written, [true, true]);
      assert.equal(await h.raw.hget(h.key('job:w1'), 'wt'), null, 'the watcher was told');
      assert.ok((await h.raw.llen(h.key('result:waiter-1'))) > 0, 'its result was pushed');
      for (const id of ['w1', 'plain']) assert.equal((await h.store.getJob(id, 'default'))!.status, 'done');
      if (extra.concurrencyKey)
        assert.equal(await h.raw.hget(h.key('job:plain'), 'ck'), extra.concurrencyKey, 'keeps its key');
    });
  }
});
