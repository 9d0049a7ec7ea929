// Redis only: commit-12.lua's PACKED REPLY (its header; commitOps.ts's decodeClaimed). The claimed
// jobs come back as one binary value, each text as its length in bytes then its bytes, and are
// decoded into exactly what a reply of one value per text gave (ioredis decodes each bulk string
// as UTF-8 by itself), whatever bytes the ids, tokens, inputs and rare fields hold: separator-like
// bytes, bytes of the lengths' own form (0x00, 0x7f, 0x80, 0xff), multi-byte UTF-8, invalid UTF-8
// written by someone else, empty texts, texts whose length takes 1, 2, 3 or 4 bytes.
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { Redis } from 'ioredis';
import { commitRoundTrip, decodeClaimed } from '../../src/store/redis/commitOps.js';
import { redisContext } from '../../src/store/redis/RedisContext.js';
import { ReplicaWait } from '../../src/store/redis/durability.js';
import type { ClaimedJob, CommitOp, JobStatus, NewJob } from '../../src/store/types.js';
import { BASE_DEFAULTS } from '../../src/store/recordSchema.js';

const job = (id: string, extra: Partial<NewJob> = {}): NewJob => ({
  id,
  machine: 'm',
  version: 3,
  input: '{"n":1}',
  band: 2,
  delayMs: 0,
  maxAttempts: 5,
  ...extra,
});

const num = (v: unknown, fallback: number): number =>
  v === '' || v === undefined || v === null ? fallback : Number(v);

/**
 * The decoding of the reply of one value per text (the code before the packed reply, as it was):
 * `f` holds per job id, token, input, then a nested array when the job carried its own fields.
 */
function flatDecode(f: (string | string[])[]): ClaimedJob[] {
  const claimed: ClaimedJob[] = [];
  let last: string[] = [];
  for (let i = 0; i < f.length; i += 3) {
    const x = f[i + 3];
    const own = Array.isArray(x) ? x : undefined;
    if (own) last = own;
    const rare = own && own.length > 4 ? own.slice(4) : undefined;
    claimed.push({
      id: f[i] as string,
      token: f[i + 1] as string,
      machine: last[0] || undefined,
      version: num(last[1], BASE_DEFAULTS.version),
      input: (f[i + 2] as string) || undefined,
      snapshot: rare?.[0] || undefined,
      attempt: num(rare?.[1], 1),
      maxAttempts: num(last[2], BASE_DEFAULTS.maxAttempts),
      leaseRequeues: Number(rare?.[2]) || 0,
      parentId: rare?.[3] || undefined,
      options: rare?.[4] || undefined,
      status: last[3] as JobStatus,
      inbox: Number(rare?.[5]) || 0,
      parentQueue: rare?.[6] || undefined,
      hasInbox: rare?.[7] === '1',
      parentState: (rare?.[8] || undefined) as ClaimedJob['parentState'],
      retryLaters: Number(rare?.[9]) || 0,
    });
    if (own) i++;
  }
  return claimed;
}

/** A length as the packed reply writes it (include/lcClaimJobs.lua's packLen). */
function packLen(n: number): Buffer {
  const out: number[] = [];
  while (n >= 128) {
    out.push((n % 128) + 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}
const packText = (t: Buffer): Buffer => Buffer.concat([packLen(t.length), t]);

// Ids with separator-like characters, the lengths' own bytes and multi-byte UTF-8; inputs of
// every length form (a length of 127 bytes takes one byte, 128 two, 16,384 three, 2,097,152 four).
const AWKWARD_IDS = [
  'a|b:c',
  'nul\u0000byte',
  '\u007f\u0001\u0002',
  'é',
  '日本語のid',
  'emoji😀x',
  ' ',
  'x'.repeat(127),
  'y'.repeat(128),
  '\u0080\u00ff',
  '3:abc',
];
const bigInput = (bytes: number): string => JSON.stringify('é'.repeat(Math.floor((bytes - 2) / 2)));
const AWKWARD_INPUTS = [
  '',
  '""',
  '"|:\\u0000"',
  JSON.stringify('日本😀'),
  JSON.stringify('a'.repeat(125)),
  JSON.stringify('a'.repeat(126)),
  bigInput(16_384),
  bigInput(2_100_000),
  '"\u0000\u0080"',
];

for (const scripts of ['functions', 'eval'] as const) {
  describe(`the packed claim reply (${scripts})`, () => {
    let redis: TestRedis;
    let h: Harness;
    before(async () => (redis = await startRedis()));
    after(async () => redis.stop());
    afterEach(async () => h.close());

    /**
     * The claim of `max` jobs by `workerId`, and what the flat decoding gave for the same jobs:
     * their fields read from their records as the claim's Lua read them (each a bulk string that
     * ioredis decodes by itself), after the claim.
     */
    async function claimBoth(workerId: string, max: number) {
      const { claimed } = await h.store.commit('default', [], {
        workerId,
        leaseMs: 30_000,
        max,
        loadMachines: [],
      });
      const flat: (string | string[])[] = [];
      let lastKey = '';
      for (const c of claimed) {
        const [m, v, input, ma, st, sn, a, lr, par, opt, io, pq, ib, rl, tk] = await h.raw.hmget(
          h.key(`job:${c.id}`),
          'm',
          'v',
          'in',
          'ma',
          'st',
          'sn',
          'a',
          'lr',
          'par',
          'opt',
          'io',
          'pq',
          'ib',
          'rl',
          'tk',
        );
        flat.push(c.id, tk!, input ?? '');
        const rare = sn ?? a ?? lr ?? par ?? opt ?? io ?? pq ?? ib ?? rl;
        const own = [m!, v ?? '', ma ?? '', st!];
        if (rare !== null) {
          const parentState = par !== null && (pq === null || pq === '') ? 'live' : '';
          flat.push([
            ...own,
            sn ?? '',
            a ?? '',
            lr ?? '',
            par ?? '',
            opt ?? '',
            io ?? '0',
            pq ?? '',
            ib ?? '',
            parentState,
            rl ?? '',
          ]);
          lastKey = own.join('\u0000');
        } else if (own.join('\u0000') !== lastKey) {
          flat.push(own);
          lastKey = own.join('\u0000');
        }
      }
      return { claimed, flat: flatDecode(flat) };
    }

    it('gives awkward ids, inputs and worker ids back byte for byte, as the flat decoding did', async () => {
      h = new Harness(redis, { scripts });
      const jobs: NewJob[] = [];
      AWKWARD_IDS.forEach((id, i) =>
        jobs.push(job(id, { input: AWKWARD_INPUTS[i % AWKWARD_INPUTS.length]! })),
      );
      AWKWARD_INPUTS.forEach((input, i) => jobs.push(job(`in${i}`, { input })));
      await h.store.enqueue('default', jobs);
      const workerId = 'w|:é\u0000😀';
      const { claimed, flat } = await claimBoth(workerId, 100);
      assert.equal(claimed.length, jobs.length);
      assert.deepEqual(claimed, flat);
      assert.deepEqual(
        claimed.map((c) => [c.id, c.input]),
        jobs.map((j) => [j.id, j.input || undefined]),
      );
      for (const c of claimed) assert.ok(c.token.startsWith(`${workerId}:`), c.token);
    });

    it('gives machines, versions and rare fields back as the flat decoding did, as they change from job to job', async () => {
      h = new Harness(redis, { scripts });
      await h.store.enqueue('default', [job('parent'), job('other parent')]);
      await h.store.enqueue('default', [
        job('a'),
        job('b', { machine: '機械|:', version: 12, maxAttempts: 1 }),
        job('c', { machine: '機械|:', version: 12, maxAttempts: 1 }),
        job('d', { options: JSON.stringify({ note: 'é|:\u0000😀', long: 'o'.repeat(300) }) }),
        job('e'),
        job('f', { parentId: 'parent', group: 'g', index: 0 }),
        job('g', { parentId: 'other parent', group: 'g', index: 1, parentQueue: 'elsewhere' }),
        job('h', { input: '' }),
        // The defaults: a record without v and ma (THE DEFAULTS LEFT OUT), which the reply sends as ''.
        job('i', { version: 1, maxAttempts: 4 }),
        job('j', { version: 1, maxAttempts: 4, options: '{}' }),
      ]);
      // A record written by someone else: bytes that are not UTF-8 in its input, snapshot and
      // options (decoded as ioredis decodes a bulk string holding them).
      await h.store.enqueue('default', [job('raw')]);
      const bad = Buffer.from([0xff, 0x00, 0x80, 0xc3, 0x7c, 0x3a, 0xe6, 0x97]);
      await h.raw.hset(h.key('job:raw'), 'in', bad, 'sn', Buffer.concat([bad, bad]), 'opt', bad, 'a', '2');
      const { claimed, flat } = await claimBoth('w', 100);
      assert.deepEqual(
        claimed.map((c) => c.id),
        ['parent', 'other parent', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'raw'],
      );
      assert.deepEqual(claimed, flat);
      const byId = new Map(claimed.map((c) => [c.id, c]));
      assert.equal(byId.get('b')!.machine, '機械|:');
      assert.equal(byId.get('c')!.version, 12);
      assert.equal(byId.get('e')!.machine, 'm');
      assert.equal(byId.get('e')!.options, undefined, 'a rare field is its own job only');
      assert.equal(byId.get('f')!.parentState, 'live');
      assert.equal(byId.get('g')!.parentQueue, 'elsewhere');
      assert.equal(byId.get('raw')!.input, bad.toString('utf8'));
      assert.equal(byId.get('raw')!.attempt, 2);
      for (const id of ['i', 'j']) {
        assert.deepEqual(await h.raw.hmget(h.key(`job:${id}`), 'v', 'ma'), [null, null]);
        assert.deepEqual([byId.get(id)!.version, byId.get(id)!.maxAttempts], [1, 4]);
      }
      assert.equal(byId.get('j')!.options, '{}');
    });

    it('withholds an input over maxInputBytes, giving its size in bytes, and the jobs after it their own fields', async () => {
      h = new Harness(redis, { scripts });
      const limit = 1000;
      // Multi-byte UTF-8: the limit counts bytes, as the worker's does (runClaimedJob.ts).
      const big = JSON.stringify({ blob: 'é'.repeat(600) });
      const edge = JSON.stringify({ blob: 'x'.repeat(limit - 11) });
      assert.equal(Buffer.byteLength(edge), limit);
      await h.store.enqueue('default', [
        job('before'),
        job('big', { input: big }),
        job('after'),
        job('edge', { input: edge }),
        job('child', { input: big, parentId: 'p', parentQueue: 'elsewhere' }),
      ]);
      const { claimed } = await h.store.commit('default', [], {
        workerId: 'w',
        max: 10,
        leaseMs: 30_000,
        loadMachines: [],
        maxInputBytes: limit,
      });
      const byId = new Map(claimed.map((c) => [c.id, c]));
      assert.deepEqual(
        claimed.map((c) => c.id),
        ['before', 'big', 'after', 'edge', 'child'],
      );
      assert.equal(byId.get('big')!.input, undefined);
      assert.equal(byId.get('big')!.inputBytes, Buffer.byteLength(big));
      assert.equal(byId.get('child')!.inputBytes, Buffer.byteLength(big));
      assert.equal(byId.get('child')!.parentQueue, 'elsewhere', 'a rare field beside it is read as it was');
      for (const id of ['before', 'after', 'edge']) {
        assert.equal(byId.get(id)!.inputBytes, undefined, id);
        assert.equal(byId.get(id)!.machine, 'm', id);
        assert.equal(byId.get(id)!.version, 3, id);
      }
      assert.equal(byId.get('edge')!.input, edge, 'an input of exactly the limit is sent');
      // Withheld from the reply only: the record keeps its input.
      assert.equal(await h.raw.hget(h.key('job:big'), 'in'), big);
    });

    it("decodes a commit sent in a pipeline with WAIT (durability 'replicated') alike", async () => {
      h = new Harness(redis, { scripts });
      await h.store.enqueue('default', [job('first')]);
      const [first] = await h.claimAs('w');
      await h.store.enqueue(
        'default',
        AWKWARD_IDS.map((id, i) => job(id, { input: AWKWARD_INPUTS[i % AWKWARD_INPUTS.length]! })),
      );
      // No replica to wait for: WAIT 0 answers at once, and the commit takes the pipeline's path.
      const conn = new Redis(redis.url);
      try {
        const ctx = redisContext(conn, {
          prefix: h.prefix,
          keys: (q) => h.store.keys(q),
          eventsMaxLen: 1000,
          finishedTtlMs: 60_000,
          failedTtlMs: 60_000,
          deadLetterMax: 1000,
          replicaWait: new ReplicaWait({ replicas: 0, timeoutMs: 100 }),
          scripts,
        });
        const done: CommitOp = {
          kind: 'done',
          id: 'first',
          token: first!.token,
          output: '1',
          snapshot: '',
          log: ['{"type":"done"}'],
        };
        const res = await commitRoundTrip(ctx, 'default', [done], {
          workerId: 'wé',
          leaseMs: 30_000,
          max: 100,
          loadMachines: [],
        });
        assert.deepEqual(res.written, [true]);
        assert.deepEqual(
          res.claimed.map((c) => [c.id, c.input]),
          AWKWARD_IDS.map((id, i) => [id, AWKWARD_INPUTS[i % AWKWARD_INPUTS.length] || undefined]),
        );
        for (const c of res.claimed) assert.match(c.token, /^wé:\d+$/);
      } finally {
        conn.disconnect();
      }
    });

    it('claims nothing as an empty reply, and a claim of many jobs whole', async () => {
      h = new Harness(redis, { scripts });
      assert.deepEqual(await h.claimAs('w', { max: 10 }), []);
      await h.store.enqueue(
        'default',
        Array.from({ length: 300 }, (_, i) => job(`j${i}`, { input: JSON.stringify('é'.repeat(i)) })),
      );
      const { claimed, flat } = await claimBoth('w', 300);
      assert.equal(claimed.length, 300);
      assert.deepEqual(claimed, flat);
    });

    it("makes each token '<workerId>:<n>' from the meta counter, across its tens and hundreds", async () => {
      h = new Harness(redis, { scripts });
      const tokensOf = async (ids: string[], max: number) => {
        await h.store.enqueue(
          'default',
          ids.map((id) => job(id)),
        );
        const claimed = await h.claimAs('w:9', { max });
        for (const c of claimed) assert.equal(await h.raw.hget(h.key(`job:${c.id}`), 'tk'), c.token);
        return claimed.map((c) => c.token);
      };
      const range = (from: number, to: number) =>
        Array.from({ length: to - from + 1 }, (_, i) => `w:9:${from + i}`);
      // The counter starts at 0: single digits, then the first ten.
      assert.deepEqual(
        await tokensOf(
          Array.from({ length: 12 }, (_, i) => `a${i}`),
          12,
        ),
        range(1, 12),
      );
      // From 95: past 99 and 100 in one claim; then past 999 and 1000.
      await h.raw.hset(h.key('meta'), 'tok', '94');
      assert.deepEqual(
        await tokensOf(
          Array.from({ length: 13 }, (_, i) => `b${i}`),
          13,
        ),
        range(95, 107),
      );
      await h.raw.hset(h.key('meta'), 'tok', '996');
      assert.deepEqual(
        await tokensOf(
          Array.from({ length: 16 }, (_, i) => `c${i}`),
          16,
        ),
        range(997, 1012),
      );
    });
  });
}

describe('decodeClaimed', () => {
  const t = (s: string | Buffer): Buffer => packText(typeof s === 'string' ? Buffer.from(s) : s);
  const NONE = Buffer.from([0]);
  const own = (...texts: string[]): Buffer =>
    Buffer.concat([Buffer.from([texts.length]), ...texts.map((x) => t(x))]);

  it('reads lengths of one to four bytes, and empty texts', () => {
    for (const n of [0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152]) {
      const input = 'i'.repeat(n);
      const [c] = decodeClaimed(Buffer.concat([t('id'), t('w:1'), t(input), own('m', '1', '3', 'working')]));
      assert.equal(c!.input, n === 0 ? undefined : input, `length ${n}`);
      assert.equal(c!.id, 'id');
    }
  });

  it('refuses a reply cut short rather than make jobs of part of it', () => {
    const first = Buffer.concat([t('id'), t('w:1'), t('{"n":1}'), own('m', '1', '3', 'working')]);
    const whole = Buffer.concat([first, t('b'), t('w:2'), t(''), NONE]);
    assert.equal(decodeClaimed(whole).length, 2);
    for (let cut = 1; cut < whole.length; cut++)
      if (cut !== first.length)
        assert.throws(() => decodeClaimed(whole.subarray(0, cut)), /cut short/, `cut at ${cut}`);
  });
});
