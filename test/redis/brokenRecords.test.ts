// Redis only: the records are hand-written job hashes, as a foreign producer or a bug could leave
// them; the worker sets each aside as broken (or fails it) and keeps serving the others. The
// Client's own refusals of bad input are in test/supervisor/badInput.test.ts.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { RedisStore, defineJob, definePipeline, type Client } from '../../src/index.js';
import type { ClaimRequest, CommitOp, CommitResult } from '../../src/store/types.js';
import { eventually, sleep, startRedis, type TestRedis } from '../support/redis.js';
import { FAST, Harness } from '../support/harness.js';

const job = defineJob({ name: 'ok', work: ({ input }: { input: unknown }) => input });

/**
 * A record written straight into Redis, as a foreign producer would, and put in line: a queued
 * job of machine 'ok' version 1 with input `{}`, unless `fields` say otherwise.
 */
async function queueForeign(h: Harness, id: string, fields: Record<string, string | number>): Promise<void> {
  await h.raw.hset(h.key(`job:${id}`), {
    st: 'queued',
    ma: 4,
    qs: 1,
    ca: 1,
    m: 'ok',
    v: 1,
    in: '{}',
    ...fields,
  });
  await h.raw.zadd(h.key('queued'), 1, id);
}

describe('broken records', () => {
  let redis: TestRedis;
  let h: Harness;
  let client: Client;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const fresh = () => {
    h = new Harness(redis);
    client = h.client({ jobs: [job] });
  };

  it('sets a job whose record has no hash aside as broken and keeps serving others', async () => {
    fresh();
    await h.started({ jobs: [job] });
    // A foreign producer put an id in line without writing its record.
    await h.raw.zadd(h.key('queued'), 1, 'ghost-id');
    await h.raw.zadd(h.key('marker'), 0, 'w');
    const id = await client.enqueue('ok', 'fine');
    assert.equal((await client.waitForResult(id, { timeoutMs: 5000 })).status, 'done');
    const broken = await eventually(async () => (await client.broken()).find((b) => b.id === 'ghost-id'));
    assert.match(broken!.reason, /missing/);
  });

  it('sets aside a record with non-JSON input, or naming an unknown machine, with the reason, and keeps serving', async () => {
    fresh();
    const sup = await h.started({ jobs: [job] });
    const put = async (id: string, fields: Record<string, string | number>) => {
      await h.raw.hset(h.key(`job:${id}`), { st: 'queued', a: 1, ma: 4, qs: 1, ca: 1, ua: 1, ...fields });
      await h.raw.zadd(h.key('queued'), 1, id);
    };
    await put('badjson', { m: 'ok', v: 1, in: '{not json' });
    await put('unknown', { m: 'mystery', v: 1, in: '{}' });
    await h.raw.zadd(h.key('marker'), 0, 'w');
    const id = await client.enqueue('ok', 'still fine');
    assert.equal((await client.waitForResult(id, { timeoutMs: 5000 })).output, 'still fine');
    await eventually(async () => (await client.broken()).length === 2);
    const reasons = Object.fromEntries((await client.broken()).map((b) => [b.id, b.reason]));
    assert.match(reasons.badjson!, /not valid JSON/);
    assert.match(reasons.unknown!, /mystery/);
    for (const bid of ['badjson', 'unknown']) {
      const rec = await client.get(bid);
      assert.equal(rec?.status, 'failed');
      assert.equal(rec?.error?.name, 'BrokenJobError');
      assert.equal(await h.raw.zscore(h.key('active'), bid), null);
    }
    assert.equal((await client.get('unknown'))?.error?.code, 'UNKNOWN_MACHINE');
    assert.equal((await client.get('badjson'))?.error?.code, 'UNDECODABLE');
    assert.equal(sup.inFlight, 0);
    // Broken jobs are not dead letters: nothing retries them by accident.
    assert.deepEqual(await client.deadLetters(), []);
    const after = await client.enqueue('ok', 'after');
    assert.equal((await client.waitForResult(after, { timeoutMs: 5000 })).status, 'done');
  });

  it('sets aside, unrun, a record no client could have written: options not JSON, input over maxPayloadBytes or nested past 1000 levels', async () => {
    // A foreign producer's records (chaos T7): the worker refuses what the Client refuses,
    // with a reason naming what is wrong, rather than run it.
    h = new Harness(redis);
    const ran: string[] = [];
    const counting = defineJob({ name: 'ok', work: ({ jobId }) => void ran.push(jobId) });
    client = h.client({ jobs: [counting] });
    await h.started({ jobs: [counting], maxPayloadBytes: 3000 });
    const put = (id: string, fields: Record<string, string | number>) => queueForeign(h, id, fields);
    await put('badopts', { opt: '{oops' });
    await put('big', { in: JSON.stringify({ blob: 'x'.repeat(4000) }) });
    await put('deep', { in: '['.repeat(1001) + ']'.repeat(1001) });
    await put('fine', { in: JSON.stringify({ blob: 'x'.repeat(900) }) });
    await h.raw.zadd(h.key('marker'), 0, 'w');
    await eventually(async () => (await client.broken()).length === 3);
    const reasons = Object.fromEntries((await client.broken()).map((b) => [b.id, b.reason]));
    assert.match(reasons.badopts!, /options are not valid JSON/);
    assert.match(reasons.big!, /over the 3000-byte limit/);
    assert.match(reasons.deep!, /nests deeper than 1000 levels/);
    assert.equal((await client.get('badopts'))?.error?.code, 'UNDECODABLE');
    assert.equal((await client.get('big'))?.error?.code, 'INPUT_TOO_LARGE');
    assert.equal((await client.get('deep'))?.error?.code, 'INPUT_TOO_DEEP');
    assert.equal((await client.waitForResult('fine', { timeoutMs: 5000 })).status, 'done');
    assert.deepEqual(ran, ['fine'], 'only the healthy record ran');
  });

  it('sets aside an input over maxPayloadBytes after one claim, where a reply carrying it would come too late to trust', async () => {
    // Chaos T7 on a loaded CI host: a claim of a 20 MiB input took longer than half a lease to
    // arrive, so it was handed back unrun as stale (CommitPump.ts, STALE CLAIM) and claimed again,
    // 137 times, and never set aside. Here a reply's transfer takes a lease per big input in it.
    h = new Harness(redis);
    const claims = new Map<string, number>();
    class SlowLink extends RedisStore {
      override async commit(queue: string, ops: CommitOp[], claim?: ClaimRequest): Promise<CommitResult> {
        const res = await super.commit(queue, ops, claim);
        for (const c of res.claimed) {
          claims.set(c.id, (claims.get(c.id) ?? 0) + 1);
          if ((c.input?.length ?? 0) > 100_000) await sleep(FAST.leaseMs);
        }
        return res;
      }
    }
    const store = new SlowLink({ url: redis.url, prefix: h.prefix });
    try {
      client = h.client({ jobs: [job] });
      await h.started({ jobs: [job], store, maxPayloadBytes: 100_000 });
      await queueForeign(h, 'huge', { in: JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) }) });
      await h.raw.zadd(h.key('marker'), 0, 'w');
      const broken = await eventually(
        async () => (await client.broken()).find((b) => b.id === 'huge'),
        8_000,
      );
      assert.match(broken!.reason, /job input is 2097163 bytes, over the 100000-byte limit/);
      assert.equal((await client.get('huge'))?.error?.code, 'INPUT_TOO_LARGE');
      assert.equal(claims.get('huge'), 1, 'claimed once');
      // The record keeps its input (a redrive after a deploy with a larger limit runs it).
      assert.equal((await h.raw.hstrlen(h.key('job:huge'), 'in')) > 2 * 1024 * 1024, true);
    } finally {
      await h.close();
      await store.close();
    }
  });

  it('sets aside, unrun, a record whose version, attempt or max attempts is not an integer >= 1 (BROKEN_RECORD naming the field)', async () => {
    h = new Harness(redis);
    const ran: string[] = [];
    const counting = defineJob({ name: 'ok', work: ({ jobId }) => void ran.push(jobId) });
    client = h.client({ jobs: [counting] });
    await h.started({ jobs: [counting] });
    const put = (id: string, fields: Record<string, string | number>) => queueForeign(h, id, fields);
    await put('badv', { v: 'abc' });
    await put('bada', { a: '-3' });
    await put('badma', { ma: 'many' });
    await put('fine', {});
    await h.raw.zadd(h.key('marker'), 0, 'w');
    await eventually(async () => (await client.broken()).length === 3);
    const reasons = Object.fromEntries((await client.broken()).map((b) => [b.id, b.reason]));
    assert.match(reasons.badv!, /version/);
    assert.match(reasons.bada!, /attempt/);
    assert.match(reasons.badma!, /max attempts/);
    for (const id of ['badv', 'bada', 'badma'])
      assert.equal((await client.get(id))?.error?.code, 'BROKEN_RECORD');
    assert.equal((await client.waitForResult('fine', { timeoutMs: 5000 })).status, 'done');
    assert.deepEqual(ran, ['fine'], 'only the healthy record ran');
  });

  it('fails a pipeline whose stored snapshot names a state its machine does not have, on its first attempt (UNKNOWN_STATE)', async () => {
    h = new Harness(redis);
    const machine = setup({}).createMachine({
      initial: 'a',
      states: { a: { on: { GO: 'b' } }, b: { type: 'final' } },
    });
    const flow = definePipeline({ name: 'flow', machine, retry: { maxAttempts: 4 } });
    client = h.client({ jobs: [flow] });
    const snapshot = {
      l: null,
      w: { status: 'active', value: 'gone', context: {}, children: {}, historyValue: {} },
    };
    await queueForeign(h, 'vanished', { m: 'flow', sn: JSON.stringify(snapshot) });
    await h.started({ jobs: [flow] });
    const rec = await client.waitForResult('vanished', { timeoutMs: 5000 });
    assert.equal(rec.status, 'failed');
    // Found before the restore (knownStates.ts): UNKNOWN_STATE; UNRESTORABLE_SNAPSHOT is for any
    // other snapshot XState cannot restore.
    assert.equal(rec.error?.code, 'UNKNOWN_STATE');
    assert.match(rec.error?.message ?? '', /gone/);
    assert.equal(rec.attempts, 1);
    assert.equal(
      (await client.events('vanished')).filter((e) => e.type === 'claimed').length,
      1,
      'claimed once',
    );
  });
});
