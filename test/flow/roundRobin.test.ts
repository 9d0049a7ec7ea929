// ROUND ROBIN BETWEEN KEYS (opt-in per queue: concurrency.fairness 'roundRobin';
// docs/flow-control.md). The design, in both stores:
// - A keyed job of a roundRobin queue waits in its key's line (ckwait:<key>, by its place), and
//   `queued` holds at most one head per key (perKey heads when perKey is set). A hash `rrq`
//   (key -> how many of its jobs are in `queued`) says whether the key has its head(s).
// - ONE FUNCTION puts a job into `queued` (Lua: lcEnterQueued(id, score, ck) in include/lcFlow.lua;
//   memory: FlowLines.enterQueued), and the rule is stated there. Every path goes through it:
//   lcCreate (enqueue-5, drainIngress-7), lcMove (promoteDue, retries, requeues, the reaper's lease
//   requeue, retryDead, send's resume, dedupe, fan-in and `after` dues), lcFreeSlot, lcFreeGate,
//   lcReleaseDueKeys, and the lines' releases of keyPause-3/flow-3 (lcReleaseLine: only the heads).
// - When a key's head leaves `queued` (claimed: the claim's pop; cancelled, deduped: lcLeave),
//   rrq of the key goes down and the key's next job enters `queued` at the BACK of its priority
//   band (a fresh score from meta seq), so keys alternate.
// - The default path keeps its cost: the claim looks at rrq only when `flow` has fairness
//   'roundRobin' (a field of the one HMGET the claim makes; other scripts read it once per call,
//   and only when a keyed job enters or leaves `queued`).

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { Client } from '../../src/client/Client.js';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { claimUpTo, doneOp } from '../support/claimOps.js';

const job = defineJob({ name: 'f', work: () => 1 });

describeOnEachStore('round robin between keys', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('total 2, no perKey: a small key enqueued after a big one starts its 10 within the first 25 starts', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { total: 2, fairness: 'roundRobin' } });
    await client.enqueueMany(
      Array.from({ length: 1000 }, (_, i) => ({
        machine: 'f',
        input: i,
        options: { concurrencyKey: 'big' },
      })),
    );
    const small = new Set<string>();
    for (let i = 0; i < 10; i++) small.add(await client.enqueue('f', i, { concurrencyKey: 'small' }));
    let running = (await h.store.commit('default', [], claimUpTo(2))).claimed;
    const order = running.map((c) => c.id);
    while (order.length < 25) {
      running = (await h.store.commit('default', running.map(doneOp), claimUpTo(2))).claimed;
      order.push(...running.map((c) => c.id));
    }
    const smallStarted = order.slice(0, 25).filter((id) => small.has(id)).length;
    assert.equal(smallStarted, 10, `${smallStarted} of the small key's 10 in the first 25 starts`);
  });

  /** Claims (and finishes) until nothing more comes; the ids in start order. */
  async function runAll(max: number): Promise<string[]> {
    const order: string[] = [];
    let running = (await h.store.commit('default', [], claimUpTo(max))).claimed;
    while (running.length > 0) {
      order.push(...running.map((c) => c.id));
      running = (await h.store.commit('default', running.map(doneOp), claimUpTo(max))).claimed;
    }
    return order;
  }
  const waitingOf = async (client: Client, key: string) =>
    (await client.queueLimits('default')).keys.find((k) => k.key === key)?.waiting ?? 0;

  it('off -> on -> off with queued keyed jobs: none is lost, each runs once, and turning it off puts every line back', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    const ids: string[] = [];
    const add = async (key: string | undefined, n: number) => {
      for (let i = 0; i < n; i++)
        ids.push(await client.enqueue('f', i, key === undefined ? {} : { concurrencyKey: key }));
    };
    await add('a', 6);
    await add('b', 6);
    await add(undefined, 3);
    await client.setQueueLimits('default', { concurrency: { total: 3, fairness: 'roundRobin' } });
    assert.equal((await client.queueLimits('default')).limits.fairness, 'roundRobin');
    await add('a', 6);
    await add('c', 6);
    // Some run, and lines form behind the heads.
    let running = (await h.store.commit('default', [], claimUpTo(3))).claimed;
    const order = running.map((c) => c.id);
    running = (await h.store.commit('default', running.map(doneOp), claimUpTo(3))).claimed;
    order.push(...running.map((c) => c.id));
    assert.ok((await waitingOf(client, 'c')) > 0, 'c waits in its line while the option is on');
    await client.setQueueLimits('default', { concurrency: { fairness: 'fifo' } });
    assert.equal((await client.queueLimits('default')).limits.fairness, undefined);
    for (const k of (await client.queueLimits('default')).keys)
      assert.equal(k.waiting, 0, `key ${k.key}'s line went back to queued`);
    await add('c', 2);
    await h.store.commit('default', running.map(doneOp), { ...claimUpTo(1), max: 0 });
    order.push(...(await runAll(3)));
    assert.equal(order.length, ids.length, 'every job started');
    assert.equal(new Set(order).size, order.length, 'none started twice');
    assert.deepEqual([...order].sort(), [...ids].sort());
  });

  it('keeps priority bands: a high-priority job starts before the heads of the normal band', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { total: 1, fairness: 'roundRobin' } });
    for (let i = 0; i < 5; i++) await client.enqueue('f', i, { concurrencyKey: 'a' });
    for (let i = 0; i < 5; i++) await client.enqueue('f', i, { concurrencyKey: 'b' });
    const urgentA = await client.enqueue('f', 'x', { concurrencyKey: 'a', priority: 'high' });
    const urgentC = await client.enqueue('f', 'y', { concurrencyKey: 'c', priority: 'high' });
    const order = await runAll(1);
    assert.equal(order.length, 12);
    // c's high job has no head before it: first. a's waits behind a's head (one per key in
    // `queued`), then enters in the high band, ahead of every normal job still queued.
    assert.equal(order[0], urgentC);
    assert.equal(order.indexOf(urgentA), 2, `a's high job started ${order.indexOf(urgentA) + 1}th`);
  });

  it("a requeued keyed job re-enters through the one entry: into its key's line when the key has its head", async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { total: 5, fairness: 'roundRobin' } });
    for (let i = 0; i < 3; i++) await client.enqueue('f', i, { concurrencyKey: 'a' });
    assert.equal(await waitingOf(client, 'a'), 2, "a's head in queued, 2 in its line");
    const [first] = (await h.store.commit('default', [], claimUpTo(1))).claimed;
    // Its next entered `queued`: one left in the line.
    assert.equal(await waitingOf(client, 'a'), 1);
    const requeue: CommitOp = { kind: 'requeue', id: first!.id, token: first!.token, log: [] };
    const retry = (c: ClaimedJob): CommitOp => ({
      kind: 'retry',
      id: c.id,
      token: c.token,
      error: '{"name":"Error","message":"x"}',
      delayMs: 0,
      attempt: c.attempt,
      log: [],
    });
    await h.store.commit('default', [requeue]);
    // Key a has its head in `queued` already: the requeued job waits in the line (a raw ZADD
    // into `queued` would leave the line at 1 and two heads of a in `queued`).
    assert.equal(await waitingOf(client, 'a'), 2);
    const [again] = (await h.store.commit('default', [], claimUpTo(1))).claimed;
    await h.store.commit('default', [retry(again!)]);
    assert.equal(await waitingOf(client, 'a'), 2, 'a retried job too');
    const order = await runAll(5);
    assert.equal(order.length, 3);
    assert.equal(new Set([again!.id, ...order]).size, 3, 'each of the 3 runs; none lost');
  });

  it("a definition's fairness is written to its queue; leaving it out clears it", async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    const fair = defineJob({ name: 'f', concurrency: { total: 3, fairness: 'roundRobin' }, work: () => 1 });
    await h.started({ jobs: [fair], concurrency: 1 });
    assert.deepEqual((await client.queueLimits('default')).limits, { total: 3, fairness: 'roundRobin' });
    await h.store.setQueueFlow('default', { total: 3, perKey: null, fairness: 'fifo', fromDefinition: true });
    assert.deepEqual((await client.queueLimits('default')).limits, { total: 3 });
    assert.throws(
      () => defineJob({ name: 'x', concurrency: { fairness: 'random' as 'fifo' }, work: () => 1 }),
      {
        code: 'INVALID_DEFINITION',
      },
    );
  });

  it("a cancelled head lets its key's next job in; a resumed key puts back only its head", async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { total: 5, fairness: 'roundRobin' } });
    const a: string[] = [];
    for (let i = 0; i < 4; i++) a.push(await client.enqueue('f', i, { concurrencyKey: 'a' }));
    assert.equal(await waitingOf(client, 'a'), 3);
    await client.cancel(a[0]!);
    assert.equal(await waitingOf(client, 'a'), 2, "the cancelled head's next entered queued");
    await client.pauseKey('default', 'a');
    // The claim meets the paused key's head and sets it aside in the line.
    assert.equal((await h.store.commit('default', [], claimUpTo(5))).claimed.length, 0);
    assert.equal(await waitingOf(client, 'a'), 3);
    await client.resumeKey('default', 'a');
    assert.equal(await waitingOf(client, 'a'), 2, 'only the head went back');
    assert.deepEqual(await runAll(5), a.slice(1));
  });

  // A record can vanish while its id waits in `queued` or in a line (a Redis eviction, an
  // operator's DEL): the claim sets the id aside as broken. Its key is on the record only, so the
  // claim cannot take it off the key's head count; before the fix the count stayed, and the key's
  // line never entered again.
  // Claims (finishing what runs) while jobs are queued; a claim that met a broken id may end
  // there (it counts as taken), so an empty answer alone does not stop it.
  async function startAll(): Promise<string[]> {
    const started: string[] = [];
    let running: ClaimedJob[] = [];
    for (let i = 0; i < 10; i++) {
      running = (await h.store.commit('default', running.map(doneOp), claimUpTo(5))).claimed;
      started.push(...running.map((c) => c.id));
      if (running.length === 0 && (await h.store.counts('default')).queued === 0) break;
    }
    return started;
  }

  it("a head whose record vanished does not stall its key's line", async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { fairness: 'roundRobin' } });
    const a = [];
    for (let i = 0; i < 3; i++) a.push(await client.enqueue('f', i, { concurrencyKey: 'a' }));
    const b = await client.enqueue('f', 'b', { concurrencyKey: 'b' });
    await h.vanish(a[0]!);
    const started = await startAll();
    assert.deepEqual([...started].sort(), [a[1]!, a[2]!, b].sort(), "key a's next jobs ran");
    assert.equal((await h.store.counts('default')).queued, 0);
  });

  it("a job of a key's line whose record vanished does not stall the line when it comes up", async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { fairness: 'roundRobin' } });
    const a = [];
    for (let i = 0; i < 3; i++) a.push(await client.enqueue('f', i, { concurrencyKey: 'a' }));
    await h.vanish(a[1]!);
    assert.deepEqual(await startAll(), [a[0]!, a[2]!]);
    assert.equal((await h.store.counts('default')).queued, 0);
  });

  // Jobs queued before the option is switched on are not reordered (docs/flow-control.md: as in
  // BullMQ Pro, where a job's group is fixed when it is added, and Hatchet, where a run keeps its
  // workflow version's strategy). With perKey set as well, the claims that meet such a backlog
  // set it aside in its key's line (1,000 pops per claim call), and from there the keys alternate.
  it('a backlog queued before the switch keeps its order; with perKey the claims set it aside and keys alternate', async () => {
    const firstStarts = async (perKey: number | undefined): Promise<string[]> => {
      h = world();
      const client = h.client({ jobs: [job] });
      await client.enqueueMany(
        Array.from({ length: 50 }, (_, i) => ({
          machine: 'f',
          input: i,
          options: { concurrencyKey: 'big' },
        })),
      );
      await client.setQueueLimits('default', {
        concurrency: { total: 2, fairness: 'roundRobin', ...(perKey ? { perKey } : {}) },
      });
      const small = new Set<string>();
      for (let i = 0; i < 4; i++) small.add(await client.enqueue('f', i, { concurrencyKey: 'small' }));
      const order: string[] = [];
      let running = (await h.store.commit('default', [], claimUpTo(2))).claimed;
      while (running.length > 0 && order.length < 12) {
        order.push(...running.map((c) => (small.has(c.id) ? 'small' : 'big')));
        running = (await h.store.commit('default', running.map(doneOp), claimUpTo(2))).claimed;
      }
      await h.close();
      return order.slice(0, 10);
    };
    assert.deepEqual(await firstStarts(undefined), Array<string>(10).fill('big'), 'the backlog drains first');
    const withPerKey = await firstStarts(1);
    assert.equal(
      withPerKey.filter((k) => k === 'small').length,
      4,
      `small's 4 in the first 10: ${withPerKey.join()}`,
    );
    h = world();
  });
});
