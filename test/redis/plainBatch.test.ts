// Redis only: THE PLAIN BATCH (lua/enqueue-5.lua). A batch whose jobs share their machine,
// version, band, delay and max attempts and have no extras, due now, with no id taken, is written
// by a loop of its own; any other batch by the general one. Both must leave the same record (the
// same fields in the same order, the same values but the place in line and the creation time),
// the job in `queued` at its place, and (but for minimal records) its `enqueued` stream entry.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import type { NewJob } from '../../src/store/types.js';
import { newJobId } from '../../src/client/buildNewJob.js';

const job = (id: string, extra: Partial<NewJob> = {}): NewJob => ({
  id,
  machine: 'm',
  version: 1,
  input: `{"id":"${id}"}`,
  band: 2,
  delayMs: 0,
  maxAttempts: 3,
  ...extra,
});

const KINDS: [string, Partial<NewJob>][] = [
  ['the normal band', {}],
  ['the default version and max attempts (no v, ma)', { maxAttempts: 4 }],
  ['another band', { band: 0 }],
  ['minimal records', { minimal: true }],
  ['minimal records of another band', { minimal: true, band: 3 }],
];

describe('the plain batch writes what the general enqueue writes', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  for (const [name, extra] of KINDS)
    it(`${name}: the same record, place in queued and stream entry`, async () => {
      h = new Harness(redis);
      // Shared values, no extras: the plain batch.
      await h.store.enqueue('default', [job('p1', extra), job('p2', extra)]);
      // Max attempts differ: each job sends its own values (the general loop); g1 is as p1.
      await h.store.enqueue('default', [job('g1', extra), job('g2', { ...extra, maxAttempts: 5 })]);
      const fields = async (id: string): Promise<[string, string][]> => {
        const flat = (await h.raw.call('HGETALL', h.key(`job:${id}`))) as string[];
        const out: [string, string][] = [];
        for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
        return out;
      };
      const plain = await fields('p1');
      const general = await fields('g1');
      const comparable = (f: [string, string][]) =>
        f.map(([k, v]) => [k, k === 'qs' || k === 'ca' ? '*' : k === 'in' ? v.replace(/"[pg]1"/, '"x"') : v]);
      assert.deepEqual(comparable(plain), comparable(general));
      assert.ok(plain.some(([k]) => k === 'qs'));
      // The normal band's in the ready list, in order; another band's in `queued` at `qs`.
      const normal = extra.band === undefined;
      if (extra.maxAttempts === 4) assert.ok(!plain.some(([k]) => k === 'v' || k === 'ma'), 'no v, ma');
      for (const [id, f] of [
        ['p1', plain],
        ['g1', general],
      ] as const)
        assert.equal(
          await h.raw.zscore(h.key('queued'), id),
          normal ? null : f.find(([k]) => k === 'qs')![1],
          `${id} in queued`,
        );
      const listed = await h.raw.lrange(h.key('ready'), 0, -1);
      assert.deepEqual(listed, normal ? ['p1', 'p2', 'g1', 'g2'] : []);
      assert.deepEqual(await h.line(), ['p1', 'p2', 'g1', 'g2']);
      const entries = await h.raw.xrange(h.key('events'), '-', '+');
      const told = entries.flatMap(([, kv]) => {
        const m = new Map<string, string>();
        for (let i = 0; i < kv.length; i += 2) m.set(kv[i]!, kv[i + 1]!);
        return m.get('t') === 'enqueued' ? (m.get('js')?.split(',') ?? [m.get('j')!]) : [];
      });
      assert.deepEqual(told, extra.minimal ? [] : ['p1', 'p2', 'g1', 'g2']);
      // And both run: a claim takes all four, in their places.
      const claimed = await h.claimAs('w', { max: 4 });
      assert.deepEqual(
        claimed.map((c) => c.id),
        ['p1', 'p2', 'g1', 'g2'],
      );
    });

  it('a batch of ULID ids writes its enqueued entry with its ids grouped (jg), read back in order', async () => {
    h = new Harness(redis);
    const ids = Array.from({ length: 70 }, () => newJobId());
    await h.store.enqueue(
      'default',
      ids.map((id) => job(id)),
    );
    // One id that is not a ULID: every id written out (js).
    await h.store.enqueue('default', [job(newJobId()), job('not-a-ulid')]);
    const entries = await h.raw.xrange(h.key('events'), '-', '+');
    const fields = entries.map(([, kv]) => kv.filter((_, i) => i % 2 === 0).join(' '));
    assert.deepEqual(fields, ['jg t s at', 'js t s at']);
    const jg = entries[0]![1][1]!;
    assert.ok(jg.length < ids.length * 10, `grouped: ${jg.length} characters for ${ids.length} ids`);
    const told = (await h.store.readEvents('default', '0', 0, 1000)).map((e) => [e.jobId, e.type]);
    assert.deepEqual(
      told.slice(0, ids.length),
      ids.map((id) => [id, 'enqueued']),
    );
    assert.equal(told.length, ids.length + 2);
    assert.equal(told.at(-1)![0], 'not-a-ulid');
  });
});
