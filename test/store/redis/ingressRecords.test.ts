// drainIngress-7.lua reads its entries as named records (the caller's IngressDecision with the
// entry's SHA-1, src/store/redis/ingressOps.ts) and refuses one it cannot read, naming its index
// and why, before it writes anything: the entry stays in the list.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { queueKeys } from '../../../src/store/keys.js';
import { loadScripts } from '../../../src/store/redis/scripts.js';
import { startRedis, type TestRedis } from '../../support/redis.js';
import { Harness } from '../../support/harness.js';

describe('ingress entries as named records', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('makes a job from a named entry, and refuses one it cannot read, writing nothing', async () => {
    h = new Harness(redis);
    const k = queueKeys(h.prefix, 'default');
    const raw = '{"machine":"m","input":1}';
    await h.raw.lpush(k.ingress, raw);
    const sha = createHash('sha1').update(raw).digest('hex');
    const script = loadScripts().find((s) => s.name === 'drainIngress')!;
    const drain = (entries: unknown[]): Promise<unknown> =>
      h.raw.eval(
        script.lua,
        7,
        k.ingress,
        k.queued,
        k.delayed,
        k.meta,
        k.events,
        k.marker,
        k.broken,
        k.base,
        1000,
        JSON.stringify(entries),
        1024,
      );
    const job = { id: 'a', machine: 'm', version: 1, input: '1', band: 1, delayMs: 0, maxAttempts: 3 };
    const cases: [unknown[], RegExp][] = [
      [[42], / BAD_INGRESS 1 not an entry record/],
      [[{ sha }], / BAD_INGRESS 1 neither a job nor a reason/],
      [[{ sha, job: { ...job, band: '1' } }], / BAD_INGRESS 1 band/],
      [[{ sha, job: { ...job, delayMs: null } }], / BAD_INGRESS 1 delay/],
      [[{ sha, job, ownId: true }], / BAD_INGRESS 1 spare id/],
    ];
    for (const [entries, why] of cases) await assert.rejects(drain(entries), why, String(why));
    assert.equal(await h.raw.llen(k.ingress), 1, 'the entry is still in the list');
    assert.deepEqual(await drain([{ sha, job }]), [1, 0, 0]);
    assert.equal(await h.raw.hget(h.key('job:a'), 'st'), 'queued');
    assert.equal(await h.raw.llen(k.ingress), 0);
  });
});
