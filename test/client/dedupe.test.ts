// The dedupe enqueue option (docs/dedupe.md) on both stores: each mode, keepLast, the result and
// the `deduplicated` event, the batch path, the release of the key when its job ends, refusals.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, ValidationError } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { gate } from '../support/harness.js';
import { eventually } from '../support/redis.js';

describeOnEachStore('dedupe', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());
  const echo = defineJob({ name: 'e', work: ({ input }: { input: unknown }) => input });

  it('untilDone returns the unfinished job, tells it (event and audit entry naming the key), and makes a new one once it ended', async () => {
    h = world();
    const client = h.client({ jobs: [echo] });
    const cursor = await h.store.lastEventCursor('default');
    const first = await client.enqueue('e', 1, { dedupe: { key: 'k' } });
    const again = await client.enqueue('e', 2, { dedupe: { key: 'k', mode: 'untilDone' } });
    assert.equal(again, first);
    assert.equal((await client.get(first))?.input, 1, 'untilDone keeps the first input');
    const log = await client.events(first);
    assert.deepEqual(log[0]?.dedupe, { key: 'k', mode: 'untilDone' });
    const note = log.find((e) => e.type === 'deduplicated');
    assert.equal(note?.key, 'k');
    assert.equal(note?.mode, 'untilDone');
    const events = await h.store.readEvents('default', cursor, 0, 100);
    assert.ok(events.some((e) => e.type === 'deduplicated' && e.jobId === first));
    // The store's own answer says so.
    const [r] = await h.store.enqueue('default', [
      {
        id: 'x1',
        machine: 'e',
        version: 1,
        input: '3',
        band: 2,
        delayMs: 0,
        maxAttempts: 1,
        dedupe: { key: 'k', mode: 'untilDone' },
      },
    ]);
    assert.deepEqual(r, { id: first, created: false, deduplicated: true });
    await h.started({ jobs: [echo] });
    await client.waitForResult(first, { timeoutMs: 10_000 });
    // Released as it ended: the same key makes a new job.
    const next = await client.enqueue('e', 4, { dedupe: { key: 'k' } });
    assert.notEqual(next, first);
    assert.equal((await client.waitForResult(next, { timeoutMs: 10_000 })).output, 4);
  });

  it('enqueueWithInfo says whether a dedupe or idempotency key kept an existing job; enqueue still answers the id', async () => {
    h = world();
    const client = h.client({ jobs: [echo] });
    const made = await client.enqueueWithInfo('e', 1, { dedupe: { key: 'i' } });
    assert.equal(made.deduplicated, false);
    const kept = await client.enqueueWithInfo('e', 2, { dedupe: { key: 'i' } });
    assert.deepEqual(kept, { id: made.id, deduplicated: true });
    assert.equal(await client.enqueue('e', 3, { dedupe: { key: 'i' } }), made.id);
    const idem = await client.enqueueWithInfo('e', 1, { idempotencyKey: 'once' });
    assert.deepEqual(await client.enqueueWithInfo('e', 1, { idempotencyKey: 'once' }), {
      id: idem.id,
      deduplicated: true,
    });
    assert.equal(idem.deduplicated, false);
    const plain = await client.enqueueWithInfo('e', 4);
    assert.equal(plain.deduplicated, false);
    assert.notEqual(plain.id, made.id);
  });

  it('ttl keeps one job per window, finished or not, and a new one after it', async () => {
    h = world();
    const client = h.client({ jobs: [echo] });
    const long = await client.enqueue('e', 1, { dedupe: { key: 'w', mode: 'ttl', ttlMs: 60_000 } });
    await h.started({ jobs: [echo] });
    await client.waitForResult(long, { timeoutMs: 10_000 });
    assert.equal(await client.enqueue('e', 2, { dedupe: { key: 'w', mode: 'ttl', ttlMs: 60_000 } }), long);
    const short = await client.enqueue('e', 1, { dedupe: { key: 's', mode: 'ttl', ttlMs: 30 } });
    await eventually(async () => {
      const id = await client.enqueue('e', 2, { dedupe: { key: 's', mode: 'ttl', ttlMs: 30 } });
      assert.notEqual(id, short);
      return true;
    });
  });

  it('debounce delays the job, replaces its input and restarts the quiet period, capped by maxDelayMs', async () => {
    h = world();
    const client = h.client({ jobs: [echo] });
    const d = { key: 'd', mode: 'debounce', ttlMs: 60_000, maxDelayMs: 120_000 } as const;
    const id = await client.enqueue('e', 1, { dedupe: d });
    const first = await client.get(id);
    assert.ok(first?.runAt && first.runAt >= first.createdAt + 60_000, 'delayed by the quiet period');
    const [a, b] = await client.enqueueMany([
      { machine: 'e', input: 2, options: { dedupe: d } },
      { machine: 'e', input: 3, options: { dedupe: d } },
    ]);
    assert.equal(a, id);
    assert.equal(b, id);
    const rec = await client.get(id);
    assert.equal(rec?.input, 3, 'the latest input');
    assert.ok(rec.runAt! >= first.runAt);
    assert.ok(rec.runAt! <= rec.createdAt + 120_000, 'never past maxDelayMs after the first');
    assert.equal((await client.list({ status: 'queued' })).jobs.length, 1);
    const replaced = (await client.events(id)).filter((e) => e.type === 'deduplicated');
    assert.equal(replaced.length, 2);
    assert.ok(replaced.every((e) => e.replaced === true));
  });

  it('debounce runs once with the last input once quiet; a job that started is not replaced', async () => {
    h = world();
    const open = gate();
    let runs = 0;
    const slow = defineJob({
      name: 's',
      work: async ({ input }: { input: number }) => (runs++, await open.promise, input),
    });
    const client = h.client({ jobs: [slow] });
    const d = { key: 'q', mode: 'debounce', ttlMs: 20 } as const;
    const id = await client.enqueue('s', 1, { dedupe: d });
    await h.started({ jobs: [slow] });
    await eventually(async () => (await client.get(id))?.status === 'working');
    const other = await client.enqueue('s', 2, { dedupe: d });
    assert.notEqual(other, id, 'a started job gets a new one');
    assert.equal((await client.get(id))?.input, 1);
    open.open();
    assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).output, 1);
    assert.equal((await client.waitForResult(other, { timeoutMs: 10_000 })).output, 2);
    assert.equal(runs, 2);
  });

  it('keepLast keeps one running and one pending with the latest input, which runs after it', async () => {
    h = world();
    const open = gate();
    const order: number[] = [];
    const slow = defineJob({
      name: 's',
      work: async ({ input }: { input: number }) => {
        order.push(input);
        if (input === 1) await open.promise;
        return input;
      },
    });
    const client = h.client({ jobs: [slow] });
    const d = { key: 'kl', keepLast: true };
    const running = await client.enqueue('s', 1, { dedupe: d });
    await h.started({ jobs: [slow], concurrency: 4 });
    await eventually(async () => (await client.get(running))?.status === 'working');
    const pending = await client.enqueue('s', 2, { dedupe: d });
    assert.notEqual(pending, running);
    assert.equal(await client.enqueue('s', 3, { dedupe: d }), pending);
    assert.equal((await client.get(pending))?.input, 3);
    assert.equal((await client.get(pending))?.status, 'queued', 'it waits for the running one');
    open.open();
    assert.equal((await client.waitForResult(pending, { timeoutMs: 10_000 })).output, 3);
    assert.deepEqual(order, [1, 3]);
  });

  it('several items with one key in one enqueueMany batch make one job', async () => {
    h = world();
    const client = h.client({ jobs: [echo] });
    const ids = await client.enqueueMany([
      { machine: 'e', input: 1, options: { dedupe: { key: 'b' } } },
      { machine: 'e', input: 2, options: { dedupe: { key: 'b' } } },
      { machine: 'e', input: 3, options: { dedupe: { key: 'c', mode: 'ttl', ttlMs: 60_000 } } },
      { machine: 'e', input: 4, options: { dedupe: { key: 'c', mode: 'ttl', ttlMs: 60_000 } } },
    ]);
    assert.equal(ids[0], ids[1]);
    assert.equal(ids[2], ids[3]);
    assert.equal((await client.list({ status: 'queued' })).jobs.length, 2);
    // A debounce made and replaced within one batch: one delayed job with the last input.
    const d = { key: 'deb', mode: 'debounce', ttlMs: 60_000 } as const;
    const deb = await client.enqueueMany(
      [1, 2, 3].map((input) => ({ machine: 'e', input, options: { dedupe: d } })),
    );
    assert.equal(new Set(deb).size, 1);
    const rec = await client.get(deb[0]!);
    assert.equal(rec?.input, 3);
    assert.ok(rec?.runAt && rec.runAt >= rec.createdAt + 60_000);
    assert.equal(await h.indexScore('queued', deb[0]!), null, 'listed once: delayed, not queued');
    assert.equal(await h.indexScore('delayed', deb[0]!), rec.runAt);
  });

  it('a cancelled job frees its key', async () => {
    h = world();
    const client = h.client({ jobs: [echo] });
    const first = await client.enqueue('e', 1, { dedupe: { key: 'c' } });
    await client.cancel(first);
    assert.notEqual(await client.enqueue('e', 2, { dedupe: { key: 'c' } }), first);
  });

  it('on a partitioned queue one key is one job: the key picks the partition', async () => {
    h = world();
    const client = h.client({ jobs: [echo] });
    await client.configureQueue('parts', { partitions: 4 });
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        client.enqueue('e', i, { queue: 'parts', dedupe: { key: 'one' } }),
      ),
    );
    assert.equal(new Set(ids).size, 1);
    const many = await client.enqueueMany(
      Array.from({ length: 8 }, (_, i) => ({
        machine: 'e',
        input: i,
        options: { queue: 'parts', dedupe: { key: 'one' } },
      })),
    );
    assert.ok(many.every((id) => id === ids[0]));
  });

  it('refuses a fan-out child that sets dedupe rather than making it without', async () => {
    h = world();
    const client = h.client({ jobs: [echo] });
    await assert.rejects(
      client.enqueueChildren('p', 'default', 'g', [
        { machine: 'e', input: 1, dedupe: { key: 'k' } } as never,
      ]),
      (e: unknown) => e instanceof ValidationError && /cannot set dedupe/.test(e.message),
    );
    assert.equal((await client.list({ status: 'queued' })).jobs.length, 0);
  });

  it('refuses a dedupe it could not apply, naming the field, and writes nothing', async () => {
    h = world();
    const client = h.client({ jobs: [echo] });
    const bad: [unknown, RegExp][] = [
      [{ key: '' }, /dedupe\.key/],
      [{ key: 'k', mode: 'nope' }, /dedupe\.mode/],
      [{ key: 'k', mode: 'ttl' }, /dedupe\.ttlMs is required/],
      [{ key: 'k', mode: 'debounce', ttlMs: 0 }, /dedupe\.ttlMs/],
      [{ key: 'k', maxDelayMs: 5 }, /maxDelayMs is for mode 'debounce'/],
      [{ key: 'k', mode: 'ttl', ttlMs: 5, keepLast: true }, /keepLast/],
      [{ key: 'k', other: 1 }, /dedupe\.other is not an option/],
    ];
    for (const [dedupe, why] of bad)
      await assert.rejects(
        client.enqueue('e', 1, { dedupe } as never),
        (e: unknown) => e instanceof ValidationError && why.test(e.message),
      );
    await assert.rejects(
      client.enqueue('e', 1, { dedupe: { key: 'k' }, idempotencyKey: 'i' }),
      /cannot both be set/,
    );
    await assert.rejects(
      client.enqueue('e', 1, { dedupe: { key: 'k', mode: 'debounce', ttlMs: 5 }, delayMs: 5 }),
      /delayMs/,
    );
    assert.equal((await client.list({ status: 'queued' })).jobs.length, 0);
  });
});
