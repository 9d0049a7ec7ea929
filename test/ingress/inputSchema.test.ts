// Ingress entries get the checks Client.enqueue makes, the machine's input schema included (an
// entry it refuses is set aside with a reason naming the field), and the entry size limit is
// the one docs/ingress.md states, exactly.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { defineJob, type BrokenEntry } from '../../src/index.js';
import { INGRESS_ENTRY_SLACK_BYTES, ingressEntryLimit } from '../../src/supervisor/parseIngressEntry.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

const resize = defineJob({
  name: 'resize',
  input: z.object({ url: z.string(), sizes: z.array(z.number()).default([640]) }),
  work: ({ input }) => input.sizes.map((s) => `${input.url}@${s.toFixed(0)}`),
});
const greet = defineJob({
  name: 'greet',
  input: z.object({ user: z.string().refine(async (u) => u !== 'mallory', 'is not allowed') }),
  work: ({ input }) => `hello ${input.user}`,
});
const echo = defineJob({ name: 'echo', work: ({ input }: { input: unknown }) => input });

describe('ingress input checks', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it("sets aside an entry its machine's schema refuses, naming the field; the others run with the schema's output", async () => {
    h = new Harness(redis);
    const entries = [
      { machine: 'resize', input: { url: 'a.png' }, id: 'good-resize' },
      { machine: 'resize', input: { url: 'a.png', sizes: [1, 'x'] }, id: 'bad-resize' },
      { machine: 'resize', input: null, id: 'null-resize' },
      { machine: 'greet', input: { user: 'mallory' }, id: 'bad-greet' },
      { machine: 'greet', input: { user: 'ana' }, id: 'good-greet' },
    ];
    for (const e of entries) await h.raw.lpush(h.key('ingress'), JSON.stringify(e));
    await h.started({ jobs: [resize, greet] });
    const client = h.client();
    const broken = (await eventually(async () => {
      const b = await client.broken();
      return b.length >= 3 && b;
    }, 10_000)) as BrokenEntry[];
    const reasonOf = (id: string) => broken.find((b) => b.raw?.includes(`"id":"${id}"`))?.reason;
    assert.match(reasonOf('bad-resize') ?? '', /^INVALID_INPUT: .*input\.sizes\[1\]/);
    assert.match(reasonOf('null-resize') ?? '', /^INVALID_INPUT: .*input: /);
    assert.match(
      reasonOf('bad-greet') ?? '',
      /^INVALID_INPUT: .*input\.user: is not allowed/,
      'async schema',
    );
    const good = await client.waitForResult('good-resize', { timeoutMs: 10_000 });
    assert.deepEqual(good.input, { url: 'a.png', sizes: [640] }, "stored as the schema's output");
    assert.deepEqual(good.output, ['a.png@640']);
    assert.equal((await client.waitForResult('good-greet', { timeoutMs: 10_000 })).output, 'hello ana');
  });

  it('parses an entry of exactly twice maxPayloadBytes plus 4 KiB, and refuses one byte more unparsed', async () => {
    h = new Harness(redis);
    const maxPayloadBytes = 1000;
    const limit = ingressEntryLimit(maxPayloadBytes);
    assert.equal(limit, 2 * maxPayloadBytes + 4096);
    // Whitespace is valid JSON: a small input in an entry padded to the exact size.
    const padded = (bytes: number, id: string) => {
      const head = `{"machine":"echo","id":"${id}","input":1`;
      return head + ' '.repeat(bytes - head.length - 1) + '}';
    };
    const at = padded(limit, 'at-limit');
    const over = padded(limit + 1, 'over-limit');
    assert.equal(Buffer.byteLength(at), limit);
    await h.raw.lpush(h.key('ingress'), at, over);
    await h.started({ jobs: [echo], maxPayloadBytes });
    const client = h.client();
    // The drain runs after start() resolves: wait for the job before waiting for its result.
    await eventually(async () => (await client.get('at-limit')) !== null, 10_000);
    assert.equal((await client.waitForResult('at-limit', { timeoutMs: 10_000 })).output, 1);
    const [b] = (await eventually(async () => {
      const all = await client.broken();
      return all.length === 1 && all;
    }, 10_000)) as BrokenEntry[];
    assert.match(
      b!.reason,
      new RegExp(`^INGRESS_TOO_LARGE: entry is ${limit + 1} bytes, over the ${limit}-byte limit`),
    );
    assert.equal(await client.get('over-limit'), null);
  });

  it('docs/ingress.md states the entry limit the code applies', () => {
    const doc = readFileSync(new URL('../../docs/ingress.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const stated = /over twice `maxPayloadBytes` plus (\d+) KiB is set aside unparsed/.exec(doc);
    assert.ok(stated, 'docs/ingress.md says what entry size is set aside unparsed');
    assert.equal(Number(stated[1]) * 1024, INGRESS_ENTRY_SLACK_BYTES);
  });
});
