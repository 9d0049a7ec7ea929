// The plain done (lua/include/lcDonePlain.lua) is a second path for lcMove's done,
// kept for speed. Both run here on the same kinds of jobs, and must leave the same record,
// indexes, audit log and stream entries.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { rawCommit } from '../support/rawCommit.js';
import { newJob } from '../support/claimOps.js';
import { COMMIT_OP_FIELDS, COMMIT_PLAIN_DONE } from '../../src/store/redis/commitOpFields.js';

/** The general done's values that are set, by field (the log as its count, then its entry). */
const FULL_DONE: Record<string, (string | number)[]> = { output: ['42'], log: [1, '{"type":"done"}'] };

describe('the plain done and the general done', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  /**
   * Finishes a claimed job with the plain done (its own kind: COMMIT_PLAIN_DONE, id, token,
   * output) or the general one (the same done in full: output, no snapshot, state or version,
   * its log given).
   */
  async function finish(id: string, token: string, plain: boolean): Promise<number> {
    const op = plain
      ? [COMMIT_PLAIN_DONE, id, token, '42']
      : ['done', id, token, ...COMMIT_OP_FIELDS.done.flatMap((f) => FULL_DONE[f] ?? [''])];
    return (await rawCommit(h, op, 1))[0]!;
  }

  /** What a finished job leaves: its record (without times, ids and tokens), indexes, log and stream kinds. */
  async function trace(id: string) {
    const rec = await h.raw.hgetall(h.key(`job:${id}`));
    for (const f of ['ca', 'ct', 'fa', 'ua', 'par', 'pi']) delete rec[f];
    // Its place in line is each job's own: whether it is there (a done one's emptied) is what compares.
    if (rec.qs) rec.qs = 'kept';
    for (const f of Object.keys(rec)) if (/^l\d+$/.test(f)) rec[f] = rec[f]!.replace(/^\d+ /, '');
    const indexes: string[] = [];
    for (const n of ['queued', 'delayed', 'active', 'waiting', 'done', 'failed', 'cancelled', 'dead'])
      if ((await h.raw.zscore(h.key(n), id)) !== null) indexes.push(n);
    const log = (await h.store.getLog(id)).map((e) => e.type);
    const stream = (await h.store.readEvents('default', '0', 0, 10_000))
      .filter((e) => e.jobId === id)
      .map((e) => `${e.type}/${e.status}`);
    return { rec, indexes, log, stream };
  }

  async function claimOne(): Promise<string> {
    return (await h.claimAs())[0]!.token;
  }

  const cases: [string, (id: string) => Promise<void>][] = [
    ['a job with an implicit log', async () => {}],
    [
      'a job with an audit log of its own',
      async (id) => void (await h.store.send(id, 'default', '{"type":"X"}', 'X', `e-${id}`)),
    ],
    ['a job someone waits for', async (id) => void (await h.store.watchJob(id, 'default', `w-${id}`))],
  ];
  for (const [name, prepare] of cases) {
    it(`leaves the same traces for ${name}`, async () => {
      h = new Harness(redis);
      const traces = [];
      for (const plain of [true, false]) {
        const id = plain ? '01JPLAIN00000000000000000A' : '01JPLAIN00000000000000000B';
        await h.store.enqueue('default', [newJob(id)]);
        const token = await claimOne();
        await prepare(id);
        assert.equal(await finish(id, token, plain), 1);
        assert.equal(await finish(id, token, plain), 0, 'a second done is refused by the fence');
        traces.push(await trace(id));
      }
      assert.deepEqual(traces[0], traces[1]);
      assert.deepEqual(traces[0]!.indexes, ['done']);
    });
  }

  it('leaves a done record an emptied place in line and lease token; one finished by older code (neither) reads the same', async () => {
    h = new Harness(redis);
    for (const plain of [true, false]) {
      const id = plain ? '01JKEEPQS0000000000000000A' : '01JKEEPQS0000000000000000B';
      await h.store.enqueue('default', [newJob(id)]);
      const token = await claimOne();
      assert.equal(await finish(id, token, plain), 1);
      const jk = h.key(`job:${id}`);
      assert.equal(await h.raw.hget(jk, 'tk'), '', 'no lease token');
      assert.equal(await h.raw.hget(jk, 'qs'), '', 'its place emptied');
      const now = await h.store.getJob(id, 'default');
      const log = await h.store.getLog(id);
      // The record as main before this change left it: no tk, no qs.
      await h.raw.hdel(jk, 'tk', 'qs');
      assert.deepEqual(await h.store.getJob(id, 'default'), now);
      assert.deepEqual(await h.store.getLog(id), log);
      assert.equal(await finish(id, token, plain), 0, 'a second done is refused by the fence either way');
    }
  });

  it('leaves the same traces for a child, and tells its parent the same outcome', async () => {
    h = new Harness(redis);
    const outcomes = [];
    for (const plain of [true, false]) {
      const parent = plain ? '01JPARENTA0000000000000000' : '01JPARENTB0000000000000000';
      await h.store.enqueue('default', [newJob(parent)]);
      await claimOne();
      await h.store.fanOpen(parent, 'default', 'g', 1, 'collect');
      const child = `${parent}.g.0`;
      await h.store.enqueue('default', [
        newJob(child, { parentId: parent, parentQueue: '', group: 'g', index: 0 }),
      ]);
      const token = await claimOne();
      assert.equal(await finish(child, token, plain), 1);
      const fan = await h.store.fanOpen(parent, 'default', 'g', 1, 'collect');
      outcomes.push({ trace: await trace(child), finished: fan.finished, result: fan.results.get(0) });
    }
    assert.deepEqual(outcomes[0], outcomes[1]);
    assert.equal(outcomes[0]!.result, '{"s":"done","o":42}');
  });
});
