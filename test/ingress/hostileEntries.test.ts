// Hostile ingress entries: each goes to the broken set with a reason naming what is wrong, the
// entries around it run, a job whose id an entry names is left as it was, and the supervisor's
// drain keeps going (no batch fails over and over on a poisoned entry).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, type BrokenEntry, type JobRecord } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('ingress hostile entries', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const echo = defineJob({ name: 'echo', work: ({ input }: { input: unknown }) => input });

  it('sets each aside with a reason naming the problem, and harms nothing else', async () => {
    h = new Harness(redis);
    const maxPayloadBytes = 10_000;
    // [raw entry, what its reason must say]
    const bad: [string, RegExp][] = [
      [JSON.stringify({ machine: 'echo', input: 'x'.repeat(maxPayloadBytes * 3) }), /TOO_LARGE/],
      [`{"machine":"echo","input":${'['.repeat(5000)}${']'.repeat(5000)}}`, /deep|nest/i],
      ['{"machine":"echo","input":1,"__proto__":{"polluted":1}}', /__proto__/],
      ['{"machine":"echo","input":{"a":{"__proto__":{"polluted":1}}}}', /__proto__/],
      ['{"machine":"echo","input":{"\\u005f\\u005fproto__":{"polluted":1}}}', /__proto__/],
      ['{"machine":"echo","input":{"constructor":{"prototype":{"polluted":1}}}}', /constructor|prototype/],
      ['{"machine":"echo","input":1e400}', /number/],
      [JSON.stringify({ machine: 5, input: 1 }), /'machine'/],
      [JSON.stringify({ machine: 'echo', input: 1, priority: 3 }), /priority/],
      [JSON.stringify({ machine: 'echo', input: 1, delayMs: '10' }), /delayMs/],
      [JSON.stringify({ machine: 'echo', input: 1, delayMs: -1 }), /delayMs/],
      [JSON.stringify({ machine: 'echo', input: 1, delayMs: 1e300 }), /delayMs/],
      [JSON.stringify({ machine: 'echo', input: 1, maxAttempts: 1.5 }), /maxAttempts/],
      [JSON.stringify({ machine: 'echo', input: 1, maxAttempts: 1e6 }), /maxAttempts/],
      [JSON.stringify({ machine: 'echo', input: 1, id: 123 }), /'id'/],
      [JSON.stringify({ machine: 'echo', input: 1, id: '../x' }), /'id'/],
      [JSON.stringify({ machine: 'echo', input: 1, id: 'é' }), /'id'/],
      [JSON.stringify({ machine: '__proto__', input: 1 }), /UNKNOWN_MACHINE/],
      [JSON.stringify({ machine: 'constructor', input: 1 }), /UNKNOWN_MACHINE/],
      [JSON.stringify({ machine: 'echo\u0000', input: 1 }), /UNKNOWN_MACHINE/],
      [JSON.stringify({ machine: 'x'.repeat(5000), input: 1 }), /UNKNOWN_MACHINE/],
      ['null', /object/],
      ['"echo"', /object/],
    ];
    const client = h.client({ jobs: [echo] });
    // A job the producer's id collides with: it must stay exactly as it was.
    const taken = await client.enqueue('echo', { mine: true }, { delayMs: 3_600_000 });
    const before = await client.get(taken);
    await h.raw.lpush(h.key('ingress'), JSON.stringify({ machine: 'echo', input: 'first' }));
    for (const [raw] of bad) await h.raw.lpush(h.key('ingress'), raw);
    await h.raw.lpush(h.key('ingress'), Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    await h.raw.lpush(h.key('ingress'), JSON.stringify({ machine: 'echo', input: 'hijack', id: taken }));
    await h.raw.lpush(h.key('ingress'), JSON.stringify({ machine: 'echo', input: 'last' }));
    await h.started({ jobs: [echo], maxPayloadBytes });

    const broken = (await eventually(async () => {
      const b = await client.broken({ limit: 100 });
      return b.length >= bad.length + 1 && b;
    }, 20_000)) as BrokenEntry[];
    assert.equal(broken.length, bad.length + 1);
    for (const [raw, reason] of bad) {
      // The raw text kept may be cut short (a huge entry): match by its start.
      const entry = broken.find((b) => b.raw !== undefined && raw.startsWith(b.raw));
      assert.ok(entry, `set aside: ${raw.slice(0, 80)}`);
      assert.match(entry.reason, reason, raw.slice(0, 80));
    }
    assert.ok(
      broken.some((b) => /^INGRESS_UNDECODABLE/.test(b.reason)),
      'bytes that are not UTF-8',
    );

    const done = (await eventually(async () => {
      const page = await client.list({ queue: 'default', status: 'done' });
      return page.jobs.length === 2 && page.jobs;
    }, 20_000)) as JobRecord[];
    assert.deepEqual(done.map((j) => j.output).sort(), ['first', 'last']);
    assert.equal(await h.raw.llen(h.key('ingress')), 0);
    assert.deepEqual(await client.get(taken), before, 'the job whose id an entry named is unchanged');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
