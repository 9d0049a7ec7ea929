// Redis only for now: each refusal is checked by scanning the prefix's keys (nothing written), and
// the set-aside cases hand-write broken job hashes.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import {
  UnknownMachineError,
  ValidationError,
  defineJob,
  definePipeline,
  type Client,
} from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

const job = defineJob({ name: 'ok', work: ({ input }: { input: unknown }) => input });

async function refuses(
  h: Harness,
  attempt: () => Promise<unknown>,
  check: (err: any) => void,
): Promise<void> {
  await assert.rejects(attempt, (err: any) => {
    check(err);
    return true;
  });
  assert.deepEqual(await h.keys(), [], 'nothing was written under the prefix');
}

describe('bad input', () => {
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

  it('refuses an unknown machine with UnknownMachineError naming it', async () => {
    fresh();
    await refuses(
      h,
      () => client.enqueue('nope', {}),
      (err) => {
        assert.ok(err instanceof UnknownMachineError);
        assert.equal(err.code, 'UNKNOWN_MACHINE');
        assert.equal(err.machine, 'nope');
        assert.equal(err.field, 'machine');
        assert.match(err.message, /nope/);
      },
    );
  });

  it('refuses a machine that no supervisor has published when the client has no definitions', async () => {
    fresh();
    const bare = h.client();
    await refuses(
      h,
      () => bare.enqueue('ok', {}),
      (err) => assert.ok(err instanceof UnknownMachineError),
    );
  });

  it('refuses input the value codec cannot store, naming its path: a class instance, a cycle, a function', async () => {
    fresh();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    class Money {
      cents = 1;
    }
    const cases: [unknown, RegExp][] = [
      [{ order: { price: new Money() } }, /class instance \(Money\) at input\.order\.price$/],
      [cyclic, /circular reference at input\.self$/],
      [() => 1, /a function at input$/],
    ];
    for (const [input, where] of cases) {
      await refuses(
        h,
        () => client.enqueue('ok', input),
        (err) => {
          assert.ok(err instanceof ValidationError, String(err));
          assert.equal(err.code, 'INVALID_INPUT');
          assert.equal(err.field, 'input');
          assert.match(err.message, /^input of 'ok' cannot be stored: /);
          assert.match(err.message, where);
        },
      );
    }
  });

  it('refuses a payload over 1 MiB by default, naming its size', async () => {
    fresh();
    const big = { blob: 'x'.repeat(1024 * 1024) };
    await refuses(
      h,
      () => client.enqueue('ok', big),
      (err) => {
        assert.ok(err instanceof ValidationError);
        assert.equal(err.field, 'input');
        assert.match(err.message, /over the 1048576-byte limit/);
      },
    );
    // Just under the limit is fine.
    const id = await client.enqueue('ok', { blob: 'x'.repeat(1024 * 1024 - 20) });
    assert.ok(id);
  });

  it('refuses input nested deeper than 1000 levels, which a worker could not store again', async () => {
    fresh();
    const deep = (n: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = [v];
      return v;
    };
    await refuses(
      h,
      () => client.enqueue('ok', deep(1001)),
      (err) => {
        assert.ok(err instanceof ValidationError, String(err));
        assert.equal(err.field, 'input');
        assert.match(err.message, /nests deeper than 1000 levels/);
      },
    );
    // 1000 levels are fine, and so is a string full of brackets.
    assert.ok(await client.enqueue('ok', deep(1000)));
    assert.ok(await client.enqueue('ok', { text: '['.repeat(5000) }));
  });

  it('refuses an invalid priority, delayMs, maxAttempts, timeoutMs, idempotencyKey or queue, naming the field', async () => {
    fresh();
    const cases: [Record<string, unknown>, string][] = [
      [{ priority: 'urgent' }, 'priority'],
      [{ priority: 0 }, 'priority'],
      [{ delayMs: -1 }, 'delayMs'],
      [{ delayMs: Number.NaN }, 'delayMs'],
      [{ delayMs: '100' }, 'delayMs'],
      [{ delayMs: Infinity }, 'delayMs'],
      [{ maxAttempts: 0 }, 'maxAttempts'],
      [{ maxAttempts: 1.5 }, 'maxAttempts'],
      [{ timeoutMs: 0 }, 'timeoutMs'],
      [{ idempotencyKey: '' }, 'idempotencyKey'],
      [{ queue: 'bad queue!' }, 'queue'],
    ];
    for (const [options, field] of cases) {
      await refuses(
        h,
        () => client.enqueue('ok', {}, options),
        (err) => {
          assert.ok(err instanceof ValidationError, `${JSON.stringify(options)}: ${String(err)}`);
          assert.equal(err.field, field, JSON.stringify(options));
        },
      );
    }
  });

  it("refuses a parentId option: children come from fanOut only, never attached to another job's tree", async () => {
    fresh();
    const attach = { parentId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } as any;
    const check = (err: any) => {
      assert.ok(err instanceof ValidationError, String(err));
      assert.equal(err.code, 'INVALID_INPUT');
      assert.equal(err.field, 'parentId');
      assert.match(err.message, /parentId/);
      return true;
    };
    await refuses(h, () => client.enqueue('ok', {}, attach), check);
    await refuses(h, () => client.enqueueMany([{ machine: 'ok', input: 1, options: attach }]), check);

    // Against a job that exists: it gains no child.
    const parent = await client.enqueue('ok', {});
    await assert.rejects(client.enqueue('ok', {}, { parentId: parent } as any), check);
    assert.deepEqual((await client.list({ parentId: parent })).jobs, []);
    assert.equal((await client.list({})).jobs.length, 1);
  });

  it('writes nothing of a batch when one item is bad', async () => {
    fresh();
    await refuses(
      h,
      () =>
        client.enqueueMany([
          { machine: 'ok', input: 1 },
          { machine: 'ok', input: 2, options: { priority: 'nope' as any } },
        ]),
      (err) => assert.equal(err.field, 'priority'),
    );
  });

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
    const put = async (id: string, fields: Record<string, string | number>) => {
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
    };
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

  it('sets aside, unrun, a record whose version, attempt or max attempts is not an integer >= 1 (BROKEN_RECORD naming the field)', async () => {
    h = new Harness(redis);
    const ran: string[] = [];
    const counting = defineJob({ name: 'ok', work: ({ jobId }) => void ran.push(jobId) });
    client = h.client({ jobs: [counting] });
    await h.started({ jobs: [counting] });
    const put = async (id: string, fields: Record<string, string | number>) => {
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
    };
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
    await h.raw.hset(h.key('job:vanished'), {
      st: 'queued',
      ma: 4,
      qs: 1,
      ca: 1,
      m: 'flow',
      v: 1,
      in: '{}',
      sn: JSON.stringify(snapshot),
    });
    await h.raw.zadd(h.key('queued'), 1, 'vanished');
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
