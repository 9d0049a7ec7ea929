// ROLE WorkQueue, claiming: the order a claim takes jobs in, a delayed job held back, an enqueue
// repeated under one key or id, and a malformed commit refused whole.

import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, DONE_LOG, enqueueOne, newJob, sleep } from './support.js';

export function claimCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('claims the highest priority band first, and in order of arrival within a band', async (store) => {
    const low = await enqueueOne(store, { band: 3 });
    const normal1 = await enqueueOne(store, { band: 2 });
    const critical = await enqueueOne(store, { band: 0 });
    const normal2 = await enqueueOne(store, { band: 2 });
    const order = (await claim(store, { max: 10 })).map((c) => c.id);
    assert.deepEqual(order, [critical, normal1, normal2, low]);
  });

  test('claims each job of a batch with its own machine, version, attempts, status, input and options', async (store) => {
    // One batch whose jobs differ (each sends its own values), one whose jobs share them (sent
    // once: enqueue-5.lua's shared form, with no extras), one that shares them and has an option
    // (the shared form with extras); the claim's reply leaves out what a job has as the one
    // before it (commit-12.lua's compact reply), never a rare field of another job.
    const mixed = [
      newJob({ machine: 'a', version: 1, maxAttempts: 3, input: '{"n":1}' }),
      newJob({ machine: 'b', version: 2, maxAttempts: 5, input: '{"n":2}' }),
      newJob({ machine: 'a', version: 1, maxAttempts: 3, input: '{"n":3}', options: '{"o":1}' }),
      newJob({ machine: 'a', version: 1, maxAttempts: 3, input: '{"n":4}' }),
      newJob({ machine: 'a', version: 3, maxAttempts: 3, input: '{"n":5}' }),
      newJob({ machine: 'a', version: 3, maxAttempts: 4, input: '{"n":6}' }),
    ];
    const same = [1, 2, 3].map((n) =>
      newJob({ machine: 'c', version: 7, maxAttempts: 9, input: `{"s":${n}}` }),
    );
    const sameWithOptions = [1, 2, 3].map((n) =>
      newJob({
        machine: 'c',
        version: 7,
        maxAttempts: 9,
        input: `{"t":${n}}`,
        ...(n === 2 ? { options: '{"o":2}' } : {}),
      }),
    );
    await store.enqueue('default', mixed);
    await store.enqueue('default', same);
    await store.enqueue('default', sameWithOptions);
    const res = await store.commit('default', [], {
      workerId: 'w',
      max: 20,
      leaseMs: 30_000,
      loadMachines: ['b'],
    });
    const got = res.claimed.map((c) => [
      c.id,
      c.machine,
      c.version,
      c.maxAttempts,
      c.status,
      c.input,
      c.options,
    ]);
    const want = [...mixed, ...same, ...sameWithOptions].map((j) => [
      j.id,
      j.machine,
      j.version,
      j.maxAttempts,
      j.machine === 'b' ? 'loading' : 'working',
      j.input,
      j.options,
    ]);
    assert.deepEqual(got, want);
    assert.equal(new Set(res.claimed.map((c) => c.token)).size, want.length, 'a token of its own each');
  });

  test('holds a delayed job back until it is due, and says when the next one is', async (store) => {
    const id = await enqueueOne(store, { delayMs: 150 });
    const before = await store.now();
    const res = await store.commit('default', [], { workerId: 'w', max: 1, leaseMs: 1000, loadMachines: [] });
    assert.equal(res.claimed.length, 0);
    assert.ok(res.nextDueAt !== null && res.nextDueAt >= before + 100, 'the due time is reported');
    assert.equal((await store.getJob(id))!.runAt, res.nextDueAt);
    assert.equal((await store.counts('default')).delayed, 1);
    await sleep(200);
    assert.deepEqual(
      (await claim(store)).map((c) => c.id),
      [id],
    );
  });

  test('claims a large batch of due jobs in small claims, each once, in due order', async (store) => {
    // Promotion moves at most 1000 due jobs a claim, behind those already queued: claims of 5
    // and then 50 take all 1,500 of a batch, none twice, in the order they fell due.
    const res = await store.enqueue(
      'default',
      Array.from({ length: 1500 }, (_, i) => newJob({ delayMs: 100 + Math.floor(i / 3) })),
    );
    const ids = res.map((r) => r.id);
    await sleep(700);
    const first = (await claim(store, { max: 5 })).map((c) => c.id);
    const rest: string[] = [];
    for (let got; (got = await claim(store, { max: 50 })).length > 0;) rest.push(...got.map((c) => c.id));
    assert.deepEqual([...first, ...rest], ids);
  });

  test('returns the existing job for a repeated idempotency key or id, making nothing', async (store) => {
    const first = newJob({ idempotencyKey: 'order-1' });
    const [a] = await store.enqueue('default', [first]);
    const [b] = await store.enqueue('default', [newJob({ idempotencyKey: 'order-1' })]);
    const [c] = await store.enqueue('default', [first]);
    assert.deepEqual(
      [a, b, c],
      [
        { id: first.id, created: true },
        // An idempotency key is the dedupe `ttl` mode's alias: the result says it deduplicated.
        { id: first.id, created: false, deduplicated: true },
        { id: first.id, created: false },
      ],
    );
    assert.equal((await store.counts('default')).queued, 1);
  });

  test('refuses a malformed commit as a whole, writing nothing', async (store) => {
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    await assert.rejects(
      store.commit('default', [
        { kind: 'done', id, token: c!.token, output: '1', snapshot: '', log: DONE_LOG },
        { kind: 'checkpoint', id, token: c!.token, status: 'done' as never, log: [] },
      ]),
      /BAD_COMMIT 2/,
    );
    assert.equal((await store.getJob(id))!.status, 'working', 'the valid op before it was not applied');
  });
}
